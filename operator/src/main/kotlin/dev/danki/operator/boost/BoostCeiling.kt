package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Taint
import io.fabric8.kubernetes.api.model.Toleration

/**
 * The most CPU a default boost may give a pod: the allocatable CPU of its node once it has one, else the
 * largest of the nodes it may be scheduled on (its nodeSelector, the nodes' NoSchedule and NoExecute
 * taints it does not tolerate, cordoned nodes left out). No node can give a container more, and a node
 * whose pods' cgroup has a CFS quota (cgroup v1) refuses a container limit above it. Affinity is not
 * read: the ceiling may be a larger node's, never a smaller one's for lack of a rule. Pure.
 */
object BoostCeiling {
    private val SCHEDULING_EFFECTS = setOf("NoSchedule", "NoExecute")

    /** The ceiling in millicores, or null when no node it may run on is known (or none has a CPU figure). */
    fun millisFor(pod: Pod, nodes: Collection<Node>): Long? {
        val spec = pod.spec ?: return null
        spec.nodeName?.takeIf { it.isNotBlank() }?.let { name ->
            return nodes.firstOrNull { it.metadata?.name == name }?.let(::allocatableMillis)
        }
        val selector = spec.nodeSelector.orEmpty()
        val tolerations = spec.tolerations.orEmpty()
        return nodes
            .asSequence()
            .filter { it.spec?.unschedulable != true }
            .filter { node -> selector.all { (k, v) -> node.metadata?.labels?.get(k) == v } }
            .filter { node ->
                node.spec
                    ?.taints
                    .orEmpty()
                    .all { taint -> allows(taint, tolerations) }
            }.mapNotNull(::allocatableMillis)
            .maxOrNull()
    }

    private fun allocatableMillis(node: Node): Long? = CpuQuantity.millisOf(node.status?.allocatable?.get("cpu"))

    /** Whether a pod with [tolerations] may be scheduled on a node with [taint]. */
    private fun allows(taint: Taint, tolerations: List<Toleration>): Boolean =
        taint.effect !in SCHEDULING_EFFECTS || tolerations.any { tolerates(it, taint) }

    /** Kubernetes' own rule (v1.Toleration.ToleratesTaint). */
    private fun tolerates(toleration: Toleration, taint: Taint): Boolean {
        if (!toleration.effect.isNullOrEmpty() && toleration.effect != taint.effect) return false
        if (!toleration.key.isNullOrEmpty() && toleration.key != taint.key) return false
        return when (toleration.operator ?: "Equal") {
            "Exists" -> true
            "Equal" -> toleration.value.orEmpty() == taint.value.orEmpty()
            else -> false
        }
    }
}
