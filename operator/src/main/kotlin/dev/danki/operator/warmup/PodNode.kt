package dev.danki.operator.warmup

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
