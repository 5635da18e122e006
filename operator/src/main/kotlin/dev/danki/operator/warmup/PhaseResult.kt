package dev.danki.operator.warmup

/** What one phase (cold, warm-up, warm) of a k6 run measured. */
data class PhaseResult(
    val requests: Long,
    val failures: Long,
    val latency: Percentiles?,
    /** The first failed request of the phase, e.g. `404 from GET /exam/1`; null when none failed. */
    val failureExample: String? = null,
)
