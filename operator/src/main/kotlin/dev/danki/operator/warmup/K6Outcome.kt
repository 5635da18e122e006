package dev.danki.operator.warmup

/** How one k6 attempt ended. */
sealed interface K6Outcome {
    data class Completed(
        val summary: K6Summary,
    ) : K6Outcome

    /** [reason] is a WarmupRun condition reason from Keys.RunConditions: `K6Failed`, `TooManyErrors` or `Timeout`. */
    data class Failed(
        val reason: String,
        val message: String,
        val summary: K6Summary? = null,
    ) : K6Outcome

    data object Cancelled : K6Outcome
}
