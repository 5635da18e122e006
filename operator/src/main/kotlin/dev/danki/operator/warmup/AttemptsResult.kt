package dev.danki.operator.warmup

/**
 * The end of all attempts of one warm-up. [firstRequestAtMillis] is the first attempt's first request
 * and [k6StartedAtMillis] the moment its k6 process was started (epoch ms; 0: none).
 */
data class AttemptsResult(
    val outcome: K6Outcome,
    val attempts: Int,
    val firstRequestAtMillis: Long = 0,
    val k6StartedAtMillis: Long = 0,
) {
    /** k6's own start-up: process start to its first request, of the first attempt (null: unknown). */
    val k6StartupMillis: Long?
        get() = (firstRequestAtMillis - k6StartedAtMillis).takeIf { firstRequestAtMillis > 0 && k6StartedAtMillis > 0 }
}
