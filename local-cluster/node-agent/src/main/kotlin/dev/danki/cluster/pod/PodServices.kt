package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.network.IpAllocator
import dev.danki.cluster.network.PodNetwork
import io.fabric8.kubernetes.api.model.Pod
import java.nio.file.Files
import java.nio.file.Path

/** What every [PodWorker] uses: settings, host tools, the pod network, addresses, tokens, status writes. */
class PodServices(
    val config: AgentConfig,
    val tools: HostTools,
    val network: PodNetwork,
    val addresses: PodAddresses,
    val serviceAccounts: ServiceAccountFiles,
    val status: PodStatusWriter,
    val configValues: ConfigValueSource,
    val events: PodEventRecorder,
) {
    /** The pod's folder for container logs and its service-account files: `<state>/pods/<ns>_<name>_<uid>`. */
    fun podDir(pod: Pod): Path {
        val meta = pod.metadata
        val dir = config.stateDir.resolve("pods").resolve("${meta.namespace}_${meta.name}_${meta.uid}")
        return Files.createDirectories(dir)
    }

    /** Removes a stopped pod's token files; its logs stay for post-mortems until the state dir is wiped. */
    fun forget(pod: Pod) {
        val dir = podDir(pod).resolve("serviceaccount")
        if (Files.isDirectory(dir)) Files.list(dir).use { files -> files.forEach { Files.deleteIfExists(it) } }
        Files.deleteIfExists(dir)
    }
}

/** Pod addresses: a pod that already has one (from before an agent restart) keeps it. */
class PodAddresses(
    private val allocator: IpAllocator,
) {
    fun claimOrAllocate(previous: String?): String = previous?.takeIf { allocator.claim(it) } ?: allocator.allocate()

    fun release(ip: String) = allocator.release(ip)
}
