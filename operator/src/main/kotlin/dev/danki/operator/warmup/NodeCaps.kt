package dev.danki.operator.warmup

/**
 * How many warm-ups may run at once on one node. A warm-up drives its pod as fast as it answers, so
 * pods warmed on one node compete for its CPU, and with the JVMs still starting there: measured on
 * one 2-core node, eight at once took minutes each, and a 1 -> 9 scale-up came Ready as soon and
 * twice as warm one at a time as two at a time (bench/results/warmup-notes.md).
 */
fun interface NodeCaps {
    /** The cap of [node], by name; called off the pool's lock, so it may read the API server. */
    fun of(node: String): Int

    companion object {
        /** The same cap on every node (`DANKI_NODE_CONCURRENCY=N`). */
        fun fixed(cap: Int) = NodeCaps { cap }
    }
}
