package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.network.HostCommandException
import dev.danki.cluster.network.IpAllocator
import dev.danki.cluster.network.PodNetwork
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.policy.NetworkPolicyEnforcer
import dev.danki.cluster.volume.PodVolumes
import dev.danki.cluster.volume.deleteTree
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
    /** ConfigMaps and Secrets for env and volumes. */
    val configValues: ConfigSources,
    val events: PodEventRecorder,
    /** Loads each pod's NetworkPolicy rules into its network namespace. */
    val policies: NetworkPolicyEnforcer,
) {
    /** The pod's folder for container logs, volumes and its service-account files: `<state>/pods/<ns>_<name>_<uid>`. */
    fun podDir(pod: Pod): Path {
        val meta = pod.metadata
        val dir = config.stateDir.resolve("pods").resolve("${meta.namespace}_${meta.name}_${meta.uid}")
        return Files.createDirectories(dir)
    }

    /** The host folders behind [pod]'s volumes. */
    fun volumes(pod: Pod): PodVolumes = PodVolumes(podDir(pod), configValues)

    /**
     * The pod's namespace, veth and [ip], with its NetworkPolicy rules loaded before anything runs
     * in it; throws [HostCommandException] after removing whatever was made.
     */
    suspend fun createNetwork(pod: Pod, ip: String): PodNetworkHandle {
        val created = network.create(pod.metadata.uid, ip)
        try {
            policies.attach(pod, created)
        } catch (e: HostCommandException) {
            policies.detach(pod.metadata.uid)
            network.remove(created.netns, created.hostVeth, created.ip)
            throw e
        }
        return created
    }

    /**
     * Removes a stopped pod's token files; when the pod itself is gone (not just the agent
     * stopping), also its volumes (emptyDir contents go with the pod) and the empty mount points
     * its containers' launches made. Its logs stay for post-mortems until the state dir is wiped.
     */
    fun forget(pod: Pod, podGone: Boolean) {
        val dir = podDir(pod)
        deleteTree(dir.resolve("serviceaccount"))
        if (podGone) {
            volumes(pod).removeAll()
            deleteTree(dir.resolve("mounts"))
        }
    }
}

/** Pod addresses: a pod that already has one (from before an agent restart) keeps it. */
class PodAddresses(
    private val allocator: IpAllocator,
) {
    fun claimOrAllocate(previous: String?): String = previous?.takeIf { allocator.claim(it) } ?: allocator.allocate()

    fun release(ip: String) = allocator.release(ip)
}
