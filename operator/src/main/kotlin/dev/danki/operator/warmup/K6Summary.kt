package dev.danki.operator.warmup

/** The JSON that `k6-scripts/warmup.js` writes to SUMMARY_PATH, parsed. */
data class K6Summary(
    val stopReason: StopReason,
    /** Why the script gave up early, when [stopReason] is `Aborted` or `OutOfTime`. */
    val abortMessage: String?,
    val cold: PhaseResult,
    val warmup: PhaseResult,
    val warm: PhaseResult,
    /** Wall-clock time of the first request, epoch ms; 0 when none was sent. */
    val firstRequestAtMillis: Long,
    val durationSeconds: Double,
    /** Why the warm-up stopped where it did; null when the run never reached its warm-up. */
    val evidence: WarmupEvidence? = null,
    /** What a custom flow's notes() reported (runner.js); tenant text, bounded by the parser. */
    val notes: List<String> = emptyList(),
) {
    val totalRequests get() = cold.requests + warmup.requests + warm.requests
    val totalFailures get() = cold.failures + warmup.failures + warm.failures

    /** The first failed request of the earliest phase that had one. */
    val failureExample get() = listOf(cold, warmup, warm).firstNotNullOfOrNull { it.failureExample }
}
