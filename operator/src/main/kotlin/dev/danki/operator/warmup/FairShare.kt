package dev.danki.operator.warmup

import kotlin.math.ceil

/**
 * How many warm-up slots one Deployment and one namespace may hold at once. A cap, not a priority:
 * a Deployment at its share waits even when slots are free, because a slot given to a tenant whose
 * pods never answer is held until that pod's timeout, an hour at worst, and meanwhile others wait.
 *
 * [perNode] caps warm-ups of pods on one node: a warm-up drives its pod as fast as it answers, so two
 * pods on one node compete for its CPU, and a node's starting JVMs compete with both. Measured on one
 * 2-core node, 8 warm-ups at once took minutes where one at a time took seconds each (bench/results).
 */
data class FairShare(
    val perDeployment: Int,
    val perNamespace: Int,
    val perNode: Int = Int.MAX_VALUE,
) {
    /** [node] is the warmed pod's node; empty when not known yet (then no node cap applies). */
    fun admits(owner: RunOwner, node: String, running: Occupancy) =
        running.of(owner) < perDeployment &&
            running.inNamespace(owner.namespace) < perNamespace &&
            (node.isEmpty() || running.onNode(node) < perNode)

    companion object {
        /** Shares of [slots]; each at least one slot, so every tenant is served. */
        fun of(slots: Int, deploymentShare: Double, namespaceShare: Double, perNode: Int = Int.MAX_VALUE) =
            FairShare(atLeastOne(slots, deploymentShare), atLeastOne(slots, namespaceShare), perNode)

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
