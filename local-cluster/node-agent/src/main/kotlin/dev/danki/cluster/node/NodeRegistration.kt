package dev.danki.cluster.node

import dev.danki.cluster.config.AgentConfig
import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import io.fabric8.kubernetes.client.utils.Serialization
import java.nio.file.Files
import java.nio.file.Path
import java.time.Instant

/**
 * Registers this agent's Node and reports it Ready with the host's capacity, as a kubelet does at
 * start and then at every status heartbeat.
 */
class NodeRegistration(
    private val client: KubernetesClient,
    private val config: AgentConfig,
) {
    private val readySince = Instant.now().toString()

    /** Creates the Node, or takes over an existing one of the same name (an agent restart). */
    fun register() {
        val node =
            NodeBuilder()
                .withNewMetadata()
                .withName(config.nodeName)
                .addToLabels("kubernetes.io/hostname", config.nodeName)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64")
                .addToLabels("danki.dev/local-cluster-instance", config.instance.toString())
                .endMetadata()
                .withNewSpec()
                .withPodCIDR(config.podCidr)
                .withPodCIDRs(config.podCidr)
                .endSpec()
                .build()
        client
            .nodes()
            .resource(node)
            .fieldManager(FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply()
        heartbeat()
    }

    /** Writes the Ready condition with a fresh heartbeat, capacity, addresses and node info. */
    fun heartbeat() {
        val now = Instant.now().toString()
        val capacity =
            mapOf(
                "cpu" to Quantity(Runtime.getRuntime().availableProcessors().toString()),
                "memory" to Quantity("${memoryKib()}Ki"),
                "pods" to Quantity(MAX_PODS.toString()),
                "ephemeral-storage" to Quantity("100Gi"),
            )

        fun condition(type: String, status: String, reason: String, message: String) =
            mapOf(
                "type" to type,
                "status" to status,
                "reason" to reason,
                "message" to message,
                "lastHeartbeatTime" to now,
                "lastTransitionTime" to readySince,
            )
        val status =
            mapOf(
                "capacity" to capacity,
                "allocatable" to capacity,
                "addresses" to
                    listOf(
                        mapOf("type" to "InternalIP", "address" to config.bridgeIp),
                        mapOf(
                            "type" to "Hostname",
                            "address" to config.nodeName,
                        ),
                    ),
                "conditions" to
                    listOf(
                        condition(
                            "MemoryPressure",
                            "False",
                            "KubeletHasSufficientMemory",
                            "no memory pressure checks in the local node agent",
                        ),
                        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", NOT_CHECKED),
                        condition("PIDPressure", "False", "KubeletHasSufficientPID", NOT_CHECKED),
                        condition("Ready", "True", "KubeletReady", "danki local node agent is posting ready status"),
                    ),
                "nodeInfo" to
                    mapOf(
                        "kubeletVersion" to KUBELET_VERSION,
                        "kubeProxyVersion" to "",
                        "containerRuntimeVersion" to "danki-local://0.1.0",
                        "operatingSystem" to "linux",
                        "architecture" to "amd64",
                        "kernelVersion" to System.getProperty("os.version"),
                        "osImage" to "host processes (danki local node agent)",
                        "machineID" to "",
                        "systemUUID" to "",
                        "bootID" to "",
                    ),
            )
        client
            .nodes()
            .withName(config.nodeName)
            .subresource("status")
            .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), Serialization.asJson(mapOf("status" to status)))
    }

    private fun memoryKib(): Long =
        Files
            .readAllLines(Path.of("/proc/meminfo"))
            .firstOrNull { it.startsWith("MemTotal:") }
            ?.split(Regex("\\s+"))
            ?.getOrNull(1)
            ?.toLongOrNull() ?: FALLBACK_MEMORY_KIB

    private companion object {
        const val FIELD_MANAGER = "danki-node-agent"
        const val NOT_CHECKED = "not checked by the local node agent"
        const val MAX_PODS = 110
        const val KUBELET_VERSION = "v1.37.1"
        const val FALLBACK_MEMORY_KIB = 8L * 1024 * 1024
    }
}
