package dev.danki.cluster.pod

import dev.danki.cluster.volume.KeySource
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.VolumeMount
import java.nio.file.Files
import java.nio.file.Path

/**
 * What a container sees mounted, as the kubelet would mount it: its `volumeMounts` (with
 * `readOnly` and `subPath`; configMap and secret volumes are always read-only, as in Kubernetes),
 * the service-account files and its termination-log file. Parents come before children, so a
 * mount inside another lands on top.
 */
object ContainerMounts {
    /** The mounts of [container]; fills its volumes first. Throws when one cannot be provided. */
    fun of(context: PodContext, container: Container): List<BindMount> {
        val volumes =
            context.pod.spec.volumes
                .orEmpty()
                .associateBy { it.name }
        val mounts =
            container.volumeMounts.orEmpty().map { mount ->
                val target = absolute(mount)
                val serviceAccount = context.serviceAccountDir
                if (target == ContainerCommand.SERVICE_ACCOUNT_PATH && serviceAccount != null) {
                    return@map BindMount(serviceAccount, target, readOnly = true)
                }
                if (!mount.subPathExpr.isNullOrEmpty()) {
                    throw ContainerConfigException("volume mount ${mount.name}: subPathExpr is not supported")
                }
                val volume =
                    volumes[mount.name]
                        ?: throw ContainerConfigException("volume mount ${mount.name}: the pod has no such volume")
                val dir = context.volumes.prepare(context.pod, volume)
                val readOnly = mount.readOnly == true || KeySource.of(volume) != null
                BindMount(subPath(dir, mount), target, readOnly)
            }
        val termination = TerminationMessage.of(context.dir, container)
        val terminationLog = BindMount(termination.file, termination.path, readOnly = false)
        return (mounts + terminationLog).sortedBy { depth(it.target) }
    }

    /** Number of path components: mounts are made in this order, so parents first. */
    fun depth(target: String): Int = target.split('/').count { it.isNotEmpty() }

    private fun absolute(mount: VolumeMount): String {
        val path = mount.mountPath.orEmpty()
        if (!path.startsWith("/")) {
            throw ContainerConfigException("volume mount ${mount.name}: mountPath \"$path\" must be absolute")
        }
        return Path.of(path).normalize().toString()
    }

    /** The volume folder itself, or its `subPath` (made as a folder when missing, as the kubelet does). */
    private fun subPath(dir: Path, mount: VolumeMount): Path {
        val sub = mount.subPath?.takeIf { it.isNotEmpty() } ?: return dir
        val resolved = dir.resolve(sub).normalize()
        if (Path.of(sub).isAbsolute || !resolved.startsWith(dir)) {
            throw ContainerConfigException("volume mount ${mount.name}: subPath \"$sub\" must stay inside the volume")
        }
        if (!Files.exists(resolved)) Files.createDirectories(resolved)
        return resolved
    }
}
