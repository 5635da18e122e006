package dev.danki.cluster.net

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.network.HostCommandException
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.policy.NetworkPolicyEnforcer
import dev.danki.cluster.policy.PolicyInformers
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.runBlocking
import org.slf4j.LoggerFactory
import java.nio.file.Files
import java.nio.file.Path

/**
 * The net agent of one real-kubelet instance: what kube-proxy and a policy-enforcing CNI plugin
 * would do, for every node of the instance at once (they share the host's network namespace).
 * - NetworkPolicy: [NetworkPolicyEnforcer], fed by the CNI plugin chained after the bridge plugin,
 *   which calls [add] with the pod's namespace path before any container starts and fails the
 *   sandbox when its rules cannot be loaded.
 * - Services: [ServiceProxy], the instance's own table in the host.
 * Attachments survive a restart in the state file: the new agent reloads each pod's rules.
 */
class NetAgent(
    private val config: NetAgentConfig,
    private val client: KubernetesClient,
) : CniHandler {
    private val log = LoggerFactory.getLogger(NetAgent::class.java)
    private val scope =
        CoroutineScope(
            SupervisorJob() + Dispatchers.IO +
                CoroutineExceptionHandler { _, error -> log.warnWith("net agent task failed", error = error) },
        )
    private val nft = nftPath() ?: error("nft not found: the net agent needs Debian's nftables package")
    private val policySources = PolicyInformers(client)
    private val policies =
        NetworkPolicyEnforcer({ Attachment.nodeIpOf(it.ip) }, NsenterNft(nft), scope, policySources)
    private val services = ServiceProxy(client, config, nft, scope)
    private val store = AttachmentStore(config.stateFile)
    private val endpoint = CniEndpoint(config.port, this)
    private var pods: SharedIndexInformer<Pod>? = null

    /** Fills every cache first, then reloads the attachments of an earlier run, then serves the plugin. */
    fun start() {
        policySources.start(policies.onChange)
        val informer = client.pods().inAnyNamespace().inform(policies.onChange, NO_RESYNC)
        policySources.usePods(informer)
        pods = informer
        policies.start()
        services.start()
        restore()
        endpoint.start()
        log.infoWith("net agent started", "instance" to config.instance, "port" to config.port, "table" to config.table)
    }

    /** Stops serving the plugin and removes the host table; each pod's rules stay in its namespace. */
    fun stop() {
        log.infoWith("net agent stopping", "instance" to config.instance)
        endpoint.stop()
        services.stop()
        pods?.stop()
        policySources.stop()
        scope.cancel()
    }

    /** Loads a new sandbox's rules now; throws when they cannot be (the plugin then fails the ADD). */
    override fun add(request: CniRequest) {
        val start = System.nanoTime()
        val pod =
            client
                .pods()
                .inNamespace(request.namespace)
                .withName(request.name)
                .get()
                ?: error("pod ${request.namespace}/${request.name} not found")
        val attachment =
            Attachment(
                request.containerId,
                request.namespace,
                request.name,
                pod.metadata.uid,
                request.netns,
                request.ip,
            )
        // A new sandbox of a known pod has a new namespace: its table must be loaded, not compared.
        val again = store.all().any { it.uid == attachment.uid }
        store.put(attachment)
        runBlocking {
            if (again) policies.reattach(pod, handle(attachment)) else policies.attach(pod, handle(attachment))
        }
        val millis = (System.nanoTime() - start) / NANOS_PER_MILLI
        log.infoWith("pod attached", fields(attachment) + ("millis" to millis))
    }

    /** Forgets a sandbox; its pod's rules go when no other sandbox of the pod is attached. */
    override fun del(request: CniRequest) {
        val attachment = store.remove(request.containerId) ?: return
        if (store.all().none { it.uid == attachment.uid }) runBlocking { policies.detach(attachment.uid) }
        log.infoWith("pod detached", fields(attachment))
    }

    /** The attachments of the previous run whose namespaces still exist get their rules again. */
    private fun restore() {
        val known =
            pods
                ?.store
                ?.list()
                .orEmpty()
                .associateBy { it.metadata.uid }
        for (attachment in store.load()) {
            val pod = known[attachment.uid]
            if (pod == null || !Files.exists(Path.of(attachment.netns))) {
                store.remove(attachment.containerId)
                log.infoWith("stale attachment dropped", fields(attachment))
                continue
            }
            try {
                runBlocking { policies.reattach(pod, handle(attachment)) }
                log.infoWith("pod reattached", fields(attachment))
            } catch (e: HostCommandException) {
                log.warnWith("pod rules not reloaded", fields(attachment), error = e)
            }
        }
    }

    private fun handle(attachment: Attachment) = PodNetworkHandle(attachment.netns, attachment.ip)

    private fun fields(attachment: Attachment): List<Pair<String, Any?>> =
        listOf(
            "namespace" to attachment.namespace,
            "pod" to attachment.name,
            "ip" to attachment.ip,
            "sandbox" to attachment.containerId.take(SHORT_ID),
        )

    private companion object {
        /** Every change arrives as an event; a periodic replay would only recompute the same rules. */
        const val NO_RESYNC = 0L
        const val SHORT_ID = 12
        const val NANOS_PER_MILLI = 1_000_000L
    }
}
