package dev.danki.operator.warmup

/**
 * The two places warm-ups run: [local] k6 processes of the operator (the built-in plan), and
 * [runners], runner pods for custom flows, which the cluster schedules, so they have their own,
 * larger bound. A run lives in one of them; questions about a run ask both.
 */
class WarmupPools(
    val local: WarmupPool,
    val runners: WarmupPool?,
) {
    private fun all() = listOfNotNull(local, runners)

    fun isQueued(runKey: String) = all().any { it.isQueued(runKey) }

    fun isRunning(runKey: String) = all().any { it.isRunning(runKey) }

    /** True when nothing of the run will start in either pool. */
    fun withdraw(runKey: String) = all().map { it.withdraw(runKey) }.all { it }

    /** Cancels every run of a pod except [keep]; returns those that had started (see [WarmupPool.cancelPod]). */
    fun cancelPod(podKey: String, keep: String? = null): Set<String> =
        all().flatMapTo(mutableSetOf()) { it.cancelPod(podKey, keep) }

    /** Queues [body] in the pool that runs [plan]; false when that queue is full. */
    fun submit(
        plan: WarmupPlan,
        runKey: String,
        podKey: String,
        owner: RunOwner,
        node: PodNode,
        body: (WarmupTask) -> Unit,
    ): Boolean {
        val pool = if (plan.script != null) runners ?: error("a custom flow needs runner pods") else local
        return pool.submit(runKey, podKey, owner, node, body)
    }

    fun shutdownNow() = all().forEach { it.shutdownNow() }
}
