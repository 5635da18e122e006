package dev.danki.cluster.volume

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Volume
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions

/**
 * The host folders behind one pod's volumes, under `<pod folder>/volumes/<volume>`, as the kubelet
 * keeps them under `/var/lib/kubelet/pods/<uid>/volumes`: an emptyDir is a plain folder that lives
 * as long as the pod (also across container restarts); a configMap or secret volume is (re)written
 * from the API server each time a container that mounts it starts.
 */
class PodVolumes(
    private val podDir: Path,
    private val objects: ConfigObjectSource,
) {
    private val root: Path get() = podDir.resolve("volumes")

    /**
     * Fills [volume] of [pod] for a container start and returns its host folder; throws
     * [VolumeUnavailableException]. One container at a time, as two may share a volume.
     */
    @Synchronized
    fun prepare(pod: Pod, volume: Volume): Path {
        val dir = root.resolve(volume.name)
        val keys = KeySource.of(volume)
        when {
            keys != null -> {
                val data = objects.data(keys.kind, pod.metadata.namespace, keys.name)
                VolumeDirectory(dir).write(KeyProjection.files(keys, data))
            }

            volume.emptyDir != null -> {
                // The kubelet's emptyDir is world-writable, so a container running as any user can use it.
                if (!Files.isDirectory(dir)) {
                    Files.createDirectories(dir)
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"))
                }
            }

            else -> {
                throw VolumeUnavailableException(
                    "volume \"${volume.name}\": only configMap, secret and emptyDir volumes are supported " +
                        "by the local node agent",
                )
            }
        }
        return dir
    }

    /** Removes every volume folder (the pod is gone): emptyDir contents go with the pod, as in Kubernetes. */
    fun removeAll() = deleteTree(root)
}
