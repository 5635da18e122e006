package dev.danki.cluster.policy

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.network.HostCommandException
import dev.danki.cluster.network.PodNetworkHandle
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

/**
 * Enforces NetworkPolicies for the pods attached to it, as a CNI plugin would: every pod's own
 * network namespace holds an nftables table with the rules of the policies that select it. Any
 * change of a policy, a pod (address, labels) or a namespace (labels) recomputes every pod's rules;
 * a pod whose rules changed gets its whole table replaced in one transaction. A new pod gets its
 * rules before its containers start. The net agent runs it for every node of a real-kubelet
 * instance, with pods attached through its CNI plugin.
 */
class NetworkPolicyEnforcer(
    /** The address of the node a pod runs on, which its rules always admit (probes); per pod, as nodes differ. */
    private val nodeIpOf: (PodNetworkHandle) -> String,
    private val loader: RulesetLoader,
    private val scope: CoroutineScope,
    /** The informer caches this reads; set once they exist (see [PolicySources]). */
    private val sources: PolicySources,
) {
    private val log = LoggerFactory.getLogger(NetworkPolicyEnforcer::class.java)

    /** Pods with a network here, by uid: the latest pod seen and its network. */
    private val attached = ConcurrentHashMap<String, Pair<Pod, PodNetworkHandle>>()

    /** The script each pod's namespace holds now, by uid; absent when it never needed one. */
    private val loaded = ConcurrentHashMap<String, String>()
    private val changes = Channel<Unit>(Channel.CONFLATED)
    private val applying = Mutex()

    /** Informer handler for pods, policies and namespaces alike: any change may change rules. */
    val onChange: ResourceEventHandler<Any> =
        object : ResourceEventHandler<Any> {
            override fun onAdd(obj: Any) = changed()

            override fun onUpdate(old: Any?, new: Any) = changed()

            override fun onDelete(obj: Any, deletedFinalStateUnknown: Boolean) = changed()
        }

    /**
     * Starts the worker that re-applies rules after changes, coalescing bursts. Its boundary: an
     * unexpected error is logged and the worker goes on; rules that failed are tried again after
     * [RETRY] even without a change.
     */
    @Suppress("TooGenericExceptionCaught")
    fun start() {
        scope.launch {
            while (true) {
                changes.receive()
                delay(COALESCE.toMillis())
                val failed =
                    try {
                        applyEverywhere()
                    } catch (e: CancellationException) {
                        throw e
                    } catch (e: RuntimeException) {
                        log.warnWith("network policy rules not computed", error = e)
                        true
                    }
                if (failed) scope.launch { delay(RETRY.toMillis()).also { changed() } }
            }
        }
    }

    /**
     * Gives the new pod its rules now, before its containers start; throws [HostCommandException]
     * when they cannot be loaded. Other pods' rules follow (they may admit or refuse it).
     */
    suspend fun attach(pod: Pod, network: PodNetworkHandle) {
        attached[pod.metadata.uid] = pod to network
        applying.withLock { apply(pod.metadata.uid, view()) }
        changed()
    }

    /**
     * Like [attach] for a pod whose namespace may hold rules of an earlier run (the net agent
     * restarted): its table is replaced even when no policy selects it now.
     */
    suspend fun reattach(pod: Pod, network: PodNetworkHandle) {
        loaded[pod.metadata.uid] = UNKNOWN
        attach(pod, network)
    }

    /**
     * The pod is being torn down: its namespace goes with its rules; other pods' rules follow.
     * Under the lock, so no load into the namespace being deleted is under way.
     */
    suspend fun detach(uid: String) {
        applying.withLock {
            attached.remove(uid)
            loaded.remove(uid)
        }
        changed()
    }

    private fun changed() {
        changes.trySend(Unit)
    }

    /** Brings every pod's rules up to date; true when some pod's could not be loaded (one never stops the rest). */
    private suspend fun applyEverywhere(): Boolean =
        applying.withLock {
            val view = view()
            attached.keys.count { uid ->
                try {
                    apply(uid, view)
                    false
                } catch (e: HostCommandException) {
                    log.warnWith("network policy rules not loaded", fields(uid), error = e)
                    true
                }
            } > 0
        }

    /** Computes the rules of [uid] from [view] and loads them if they differ from what its namespace holds. */
    private fun apply(uid: String, view: ClusterView) {
        val (pod, network) = attached[uid] ?: return
        val target = view.pods.firstOrNull { it.uid == uid } ?: PolicyPod.of(pod, network.ip)
        val firewall = PolicyRules.forPod(target, view)
        val script = NftRuleset.render(firewall, nodeIpOf(network))
        val current = loaded[uid]
        if (script == current || (current == null && !firewall.isolated)) return
        loader.load(network.netns, script)
        loaded[uid] = script
        val counts = listOf("ingressRules" to firewall.ingress?.size, "egressRules" to firewall.egress?.size)
        log.infoWith("network policy rules loaded", fields(uid) + counts)
    }

    /** Policies, pods with their addresses (the agent's own, before the API shows them) and namespace labels. */
    private fun view(): ClusterView {
        val local = attached.values.associate { (pod, network) -> pod.metadata.uid to network.ip }
        val known = sources.pods().associateBy { it.metadata.uid }
        val fresh = attached.values.map { it.first }.filter { it.metadata.uid !in known }
        val pods =
            (known.values + fresh)
                .filter { it.status?.phase !in TERMINAL_PHASES }
                .map { PolicyPod.of(it, local[it.metadata.uid] ?: it.status?.podIP) }
                .filter { it.ip != null }
        val namespaces = sources.namespaces().associate { it.metadata.name to it.metadata.labels.orEmpty() }
        return ClusterView(sources.policies(), pods, namespaces)
    }

    private fun fields(uid: String): List<Pair<String, Any?>> {
        val pod = attached[uid]?.first
        return listOf("namespace" to pod?.metadata?.namespace, "pod" to pod?.metadata?.name, "uid" to uid)
    }

    private companion object {
        /** Nothing of a pod in these phases runs again, so no policy counts it. */
        val TERMINAL_PHASES = setOf("Succeeded", "Failed")

        /** Changes that come together (a Deployment scaled up) are applied together. */
        val COALESCE: Duration = Duration.ofMillis(50)

        /** A pod whose rules failed to load is tried again after this, even without a change. */
        val RETRY: Duration = Duration.ofSeconds(5)

        /** What a reattached pod's namespace holds: not known, so never equal to a script. */
        const val UNKNOWN = "unknown"
    }
}

/** The informer caches policies are computed from. */
interface PolicySources {
    fun policies(): List<NetworkPolicy>

    fun pods(): List<Pod>

    fun namespaces(): List<Namespace>
}
