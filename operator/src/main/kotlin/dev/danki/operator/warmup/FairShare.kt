package dev.danki.operator.warmup

import kotlin.math.ceil

/**
 * How many warm-up slots one Deployment and one namespace may hold at once. A cap, not a priority:
 * a Deployment at its share waits even when slots are free, because a slot given to a tenant whose
 * pods never answer is held until that pod's timeout, an hour at worst, and meanwhile others wait.
 * Each node has a cap of its own too ([PodNode], passed with each warm-up).
 */
data class FairShare(
    val perDeployment: Int,
    val perNamespace: Int,
) {
    fun admits(owner: RunOwner, node: PodNode, running: Occupancy) =
        running.of(owner) < perDeployment &&
            running.inNamespace(owner.namespace) < perNamespace &&
            (node.name.isEmpty() || running.onNode(node.name) < node.cap)

    companion object {
        /** Shares of [slots]; each at least one slot, so every tenant is served. */
        fun of(slots: Int, deploymentShare: Double, namespaceShare: Double) =
            FairShare(atLeastOne(slots, deploymentShare), atLeastOne(slots, namespaceShare))

        fun unlimited(slots: Int) = FairShare(slots, slots)

        private fun atLeastOne(slots: Int, share: Double) = ceil(slots * share).toInt().coerceIn(1, slots)
    }
}

/** Slots held now, in all, per owner and per namespace. Not thread-safe: the pool guards it. */
class Occupancy {
    private val byOwner = HashMap<RunOwner, Int>()
    private val byNamespace = HashMap<String, Int>()
    private val byNode = HashMap<String, Int>()

    var total = 0
        private set

    fun of(owner: RunOwner) = byOwner[owner] ?: 0

    fun inNamespace(namespace: String) = byNamespace[namespace] ?: 0

    fun onNode(node: String) = byNode[node] ?: 0

    fun add(owner: RunOwner, node: String = "") {
        total++
        byOwner.merge(owner, 1, Int::plus)
        byNamespace.merge(owner.namespace, 1, Int::plus)
        if (node.isNotEmpty()) byNode.merge(node, 1, Int::plus)
    }

    fun remove(owner: RunOwner, node: String = "") {
        total--
        byOwner.computeIfPresent(owner) { _, n -> (n - 1).takeIf { it > 0 } }
        byNamespace.computeIfPresent(owner.namespace) { _, n -> (n - 1).takeIf { it > 0 } }
        if (node.isNotEmpty()) byNode.computeIfPresent(node) { _, n -> (n - 1).takeIf { it > 0 } }
    }
}

/** Whose warm-up a run is: the tenant unit that fair sharing counts (a Deployment in a namespace). */
data class RunOwner(
    val namespace: String,
    val deployment: String,
) {
    companion object {
        /** For a pod without a Deployment: the pod alone, in its namespace. */
        fun of(podKey: String): RunOwner {
            val (namespace, pod) = podKey.split('/', limit = 2).let { it[0] to it.getOrElse(1) { "" } }
            return RunOwner(namespace, "pod:$pod")
        }
    }
}

/** The node a warmed pod runs on, and how many warm-ups that node may run at once ([NodeCaps]). */
data class PodNode(
    /** Empty when the pod is not scheduled yet: then no node cap applies. */
    val name: String,
    val cap: Int,
) {
    companion object {
        val UNKNOWN = PodNode("", Int.MAX_VALUE)
    }
}
