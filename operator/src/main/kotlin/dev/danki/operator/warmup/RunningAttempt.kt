package dev.danki.operator.warmup

/** One k6 attempt under way. */
interface RunningAttempt {
    /** Waits for the attempt to end (at most until the request's deadline) and classifies it. */
    fun await(): K6Outcome

    /** Stops the attempt now; [await] then answers [K6Outcome.Cancelled]. */
    fun cancel()

    /** Removes what the attempt left behind (files, a runner pod); safe to repeat. */
    fun cleanUp()
}
