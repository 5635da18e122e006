package dev.danki.operator.warmup

import dev.danki.operator.kube.BackoffPolicy
import java.time.Clock
import java.time.Duration
import java.time.Instant

/** Callbacks so the caller can record each attempt on the WarmupRun. */
interface AttemptListener {
    fun attemptStarted(attempt: Int)

    fun attemptFailed(
        attempt: Int,
        failure: K6Outcome.Failed,
        retryIn: Duration,
    )
}

/** The end of all attempts of one warm-up; [firstRequestAtMillis] is the first attempt's first request (0: none). */
data class AttemptsResult(
    val outcome: K6Outcome,
    val attempts: Int,
    val firstRequestAtMillis: Long = 0,
)

/**
 * Runs k6 until one attempt succeeds, retrying failures (unreachable target, too many 5xx, a k6
 * crash) with back-off, and giving up when the next attempt could not finish before the deadline.
 */
class WarmupAttempts(
    private val runner: K6Runner,
    private val backoff: BackoffPolicy = BackoffPolicy.WARMUP_ATTEMPT,
    private val clock: Clock = Clock.systemUTC(),
) {
    fun run(
        request: K6Request,
        task: WarmupTask,
        listener: AttemptListener,
    ): AttemptsResult {
        var attempt = 0
        var first = 0L
        var last: K6Outcome.Failed? = null
        while (true) {
            if (task.cancelled) return AttemptsResult(K6Outcome.Cancelled, attempt, first)
            attempt++
            // k6 first, bookkeeping after: the time to the first request is what users wait for
            val process = runner.start(request)
            task.process = process
            if (task.cancelled) process.cancel()
            listener.attemptStarted(attempt)
            val outcome = process.await()
            task.process = null
            process.cleanUp()
            if (first == 0L) first = firstRequestOf(outcome)
            when (outcome) {
                is K6Outcome.Completed, K6Outcome.Cancelled -> return AttemptsResult(outcome, attempt, first)
                is K6Outcome.Failed -> last = outcome
            }
            val delay = backoff.delay(attempt)
            val nextStart: Instant = clock.instant().plus(delay).plus(MIN_ATTEMPT)
            if (outcome.reason == TIMEOUT || nextStart.isAfter(request.deadline)) {
                return AttemptsResult(giveUp(last, attempt), attempt, first)
            }
            listener.attemptFailed(attempt, outcome, delay)
            if (!task.pause(delay)) return AttemptsResult(K6Outcome.Cancelled, attempt, first)
        }
    }

    private fun firstRequestOf(outcome: K6Outcome): Long =
        when (outcome) {
            is K6Outcome.Completed -> outcome.summary.firstRequestAtMillis
            is K6Outcome.Failed -> outcome.summary?.firstRequestAtMillis ?: 0L
            K6Outcome.Cancelled -> 0L
        }

    private fun giveUp(
        last: K6Outcome.Failed,
        attempts: Int,
    ): K6Outcome.Failed {
        val count = if (attempts == 1) "1 attempt" else "$attempts attempts"
        return last.copy(message = "${last.message} (gave up after $count: the timeout leaves no room for another)")
    }

    companion object {
        private const val TIMEOUT = "Timeout"

        /** Shortest attempt worth starting: k6 start-up plus a few seconds of requests. */
        val MIN_ATTEMPT: Duration = Duration.ofSeconds(5)
    }
}
