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

    companion object {
        /**
         * One warm-up sent as k6 runs of a phase or two each ([runs], in order, all completed): each phase as
         * the run that sent it measured it; the stop reason and evidence of the run with the warm-up; the
         * first run's first request.
         */
        fun joined(runs: List<K6Summary>): K6Summary {
            val warmedBy = runs.lastOrNull { it.stopReason != StopReason.Measured } ?: runs.last()

            fun sent(phase: (K6Summary) -> PhaseResult) =
                runs.map(phase).lastOrNull { it.requests > 0 } ?: phase(warmedBy)
            return K6Summary(
                stopReason = warmedBy.stopReason,
                abortMessage = warmedBy.abortMessage,
                cold = sent { it.cold },
                warmup = sent { it.warmup },
                warm = sent { it.warm },
                firstRequestAtMillis = runs.first().firstRequestAtMillis,
                durationSeconds = runs.sumOf { it.durationSeconds },
                evidence = warmedBy.evidence,
                notes = runs.flatMap { it.notes }.distinct(),
            )
        }
    }
}

/** What one phase (cold, warm-up, warm) of a k6 run measured. */
data class PhaseResult(
    val requests: Long,
    val failures: Long,
    val latency: Percentiles?,
    /** The first failed request of the phase, e.g. `404 from GET /exam/1`; null when none failed. */
    val failureExample: String? = null,
)

/** Latency percentiles of one phase, in milliseconds. */
data class Percentiles(
    val p25: Double,
    val p50: Double,
    val p75: Double,
    val p90: Double,
    val p95: Double,
) {
    fun asMap() = linkedMapOf("p25" to p25, "p50" to p50, "p75" to p75, "p90" to p90, "p95" to p95)
}

/**
 * Why the warm-up phase stopped, as written by `warmup.js`. `Converged`, `JitSettled`, `TargetReached`,
 * `MaxRequests` and `Timeout` end a run that goes on to its warm pass; `Aborted` (too many failed
 * requests) and `OutOfTime` (the run's own time budget cut it before the warm pass ended) end a failed one.
 */
enum class StopReason {
    Converged,
    TargetReached,
    MaxRequests,
    Timeout,
    Aborted,
    OutOfTime,
    JitSettled,

    /** A run of measurement passes alone, without the warm-up (see [K6Summary.joined]). */
    Measured,
}

/**
 * Why a warm-up stopped where it did, as `warmup.js` measured it: what a user reads to judge whether
 * the stop rule chose well.
 */
data class WarmupEvidence(
    /** `latency` (block P95 stopped improving) or `jit` (the JIT ran out of work). */
    val rule: String,
    /** Warm-up requests in flight at once. */
    val concurrency: Int,
    /** Warm-up requests sent. */
    val requests: Long,
    /** Blocks of answers the rules judged, and how many answers make one. */
    val blocks: Int,
    val blockSize: Int,
    /** P95 (ms) of the last block, and of the best block before the ones the latency rule compared. */
    val lastBlockP95: Double?,
    val earlierBestP95: Double?,
    /** Wall time of the warm-up phase, and the requests/s the pod took. */
    val seconds: Double?,
    val achievedRate: Double?,
    /** The JIT scrapes, when the plan named a metrics page. */
    val jit: JitEvidence?,
)

/** What the pod's JIT counter said during the warm-up. */
data class JitEvidence(
    val url: String,
    /** The counter found, e.g. `jvm_compilation_time_ms_total`; null when none was. */
    val metric: String?,
    /** JIT compile time spent during the warm-up, ms. */
    val compileMs: Double?,
    /** Compile time per block at the last scrape, ms. */
    val lastBlockMs: Double?,
    /** Why the JIT rule could not be used (the latency rule decided instead); null when it could. */
    val error: String?,
)
