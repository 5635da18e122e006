package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.volume.PodVolumes
import io.fabric8.kubernetes.api.model.Pod
import java.nio.file.Path

/** What every container of one pod shares: its network namespace, address, files and the agent's settings. */
class PodContext(
    @Volatile var pod: Pod,
    val config: AgentConfig,
    val tools: HostTools,
    /** The pod's network namespace, host veth and address. */
    val network: PodNetworkHandle,
    /** Per-pod folder under the agent's state dir: container logs, volumes and the service-account files. */
    val dir: Path,
    /** Folder with token, ca.crt and namespace, or null when the pod mounts no service-account token. */
    val serviceAccountDir: Path?,
    val configValues: ConfigValueSource,
    val events: PodEventRecorder,
    /** The host folders behind the pod's volumes. */
    val volumes: PodVolumes,
) {
    val netns: String get() = network.netns
    val ip: String get() = network.ip
    val namespace: String get() = pod.metadata.namespace
    val name: String get() = pod.metadata.name

    /** Variables every container gets before the catalog's and its own, as the kubelet provides them. */
    fun baseEnv(): Map<String, String> =
        linkedMapOf(
            "PATH" to (System.getenv("PATH") ?: "/usr/local/bin:/usr/bin:/bin"),
            "HOSTNAME" to name,
            // A fresh HOME keeps a user's ~/.kube/config from overriding the in-cluster service account.
            "HOME" to dir.toString(),
            "LANG" to "C.UTF-8",
            "KUBERNETES_SERVICE_HOST" to config.bridgeIp,
            "KUBERNETES_SERVICE_PORT" to config.apiPort.toString(),
            "KUBERNETES_SERVICE_PORT_HTTPS" to config.apiPort.toString(),
            "KUBERNETES_PORT" to "tcp://${config.bridgeIp}:${config.apiPort}",
        )
}
