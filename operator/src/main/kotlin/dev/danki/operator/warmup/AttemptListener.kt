package dev.danki.operator.warmup

import java.time.Duration

/** Callbacks so the caller can record each attempt on the WarmupRun. */
interface AttemptListener {
    fun attemptStarted(attempt: Int)

    fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration)
}
