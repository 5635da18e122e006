package dev.danki.cluster.volume

import io.fabric8.kubernetes.api.model.KeyToPath
import io.fabric8.kubernetes.api.model.Volume

/** The fields a configMap and a secret volume have in common. */
data class KeySource(
    val kind: ConfigKind,
    val name: String,
    val items: List<KeyToPath>,
    val defaultMode: Int?,
    val optional: Boolean,
) {
    companion object {
        /** The key source of [volume], or null when it is neither a configMap nor a secret volume. */
        fun of(volume: Volume): KeySource? {
            volume.configMap?.let { map ->
                val optional = map.optional == true
                return KeySource(ConfigKind.CONFIG_MAP, map.name, map.items.orEmpty(), map.defaultMode, optional)
            }
            volume.secret?.let { secret ->
                val optional = secret.optional == true
                val items = secret.items.orEmpty()
                return KeySource(ConfigKind.SECRET, secret.secretName, items, secret.defaultMode, optional)
            }
            return null
        }
    }
}

/**
 * Which files a configMap or secret volume shows, by the kubelet's rules: every key as a file of
 * its name, or only the `items` (key to path, each with its own mode); `defaultMode` else 0644;
 * a missing object or item key stops the container unless the volume is `optional`.
 */
object KeyProjection {
    /** The API's default for `defaultMode`: 0644. */
    const val DEFAULT_MODE = 0b110_100_100

    /** The files [source] shows, given its object's [data] (null when the object does not exist). */
    fun files(source: KeySource, data: Map<String, ByteArray>?): List<VolumeFile> {
        val mode = source.defaultMode ?: DEFAULT_MODE
        if (data == null) {
            if (source.optional) return emptyList()
            throw VolumeUnavailableException("${source.kind.label} \"${source.name}\" not found")
        }
        if (source.items.isEmpty()) {
            return data.entries.sortedBy { it.key }.map { (key, content) -> VolumeFile(checked(key), content, mode) }
        }
        return source.items.mapNotNull { item ->
            val content = data[item.key]
            when {
                content != null -> VolumeFile(checked(item.path), content, item.mode ?: mode)

                source.optional -> null

                else -> throw VolumeUnavailableException(
                    "${source.kind.label} \"${source.name}\" has no key \"${item.key}\"",
                )
            }
        }
    }

    /** The API server validates paths too; this keeps a file from ever leaving its volume folder. */
    private fun checked(path: String): String {
        // Empty parts also catch a leading or doubled '/'; '..' also covers the writer's own '..data'.
        if (path.split('/').any { it.isEmpty() || it.startsWith("..") }) {
            throw VolumeUnavailableException("volume path \"$path\" must be relative, without '..'")
        }
        return path
    }
}
