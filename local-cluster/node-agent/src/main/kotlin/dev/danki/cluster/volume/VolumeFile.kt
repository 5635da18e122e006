package dev.danki.cluster.volume

/** One file of a configMap or secret volume: its path inside the volume, its bytes and its mode bits. */
class VolumeFile(
    /** Relative path inside the volume (`key`, or an item's `path` such as `conf/app.yaml`). */
    val path: String,
    val content: ByteArray,
    /** Permission bits, as the API gives them (decimal 420 is 0644). */
    val mode: Int,
) {
    override fun toString() = "VolumeFile($path, ${content.size} bytes, mode ${Integer.toOctalString(mode)})"
}

/** A volume the container needs cannot be provided (yet); the kubelet's reason is CreateContainerConfigError. */
class VolumeUnavailableException(
    message: String,
) : IllegalStateException(message)
