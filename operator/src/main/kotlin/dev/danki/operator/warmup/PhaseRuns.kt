package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import java.time.Duration

/**
 * One warm-up sent as k6 runs of some of its phases each, in order, for a pod whose CPU changes between
 * them (a CPU boost for the warm-up phase only). To the caller they are one warm-up: attempts are
 * numbered across the runs, and their results are joined into one. A run that does not complete ends it.
 */
class PhaseRuns(
    private val attempts: WarmupAttempts,
    private val request: K6Request,
    private val task: WarmupTask,
    private val listener: AttemptListener,
) {
    private val done = mutableListOf<AttemptsResult>()
    private var attemptsSoFar = 0

    /** Whether every run so far completed (true before the first). */
    val completed: Boolean get() = done.all { it.outcome is K6Outcome.Completed }

    /** Sends [phases] in a k6 run of their own; false when it did not complete, which ends the warm-up. */
    fun send(phases: Set<WarmupPhase>): Boolean {
        val offset = attemptsSoFar
        val numbered =
            object : AttemptListener {
                override fun attemptStarted(attempt: Int) = listener.attemptStarted(offset + attempt)

                override fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration) =
                    listener.attemptFailed(offset + attempt, failure, retryIn)
            }
        val result = attempts.run(request.copy(phases = phases), task, numbered)
        attemptsSoFar += result.attempts
        done += if (done.isNotEmpty() && result.attempts == 0) noTimeFor(phases, result) else result
        return result.outcome is K6Outcome.Completed
    }

    /** The runs as one: the first run's start and first request, attempts summed, summaries joined. */
    fun result(): AttemptsResult {
        val first = done.first()
        val outcome =
            if (completed) {
                K6Outcome.Completed(K6Summary.joined(done.map { (it.outcome as K6Outcome.Completed).summary }))
            } else {
                done.first { it.outcome !is K6Outcome.Completed }.outcome
            }
        return AttemptsResult(outcome, attemptsSoFar, first.firstRequestAtMillis, first.k6StartedAtMillis)
    }

    /** A later run that did not start: its warm-up's time ran out, it was never queued. */
    private fun noTimeFor(phases: Set<WarmupPhase>, result: AttemptsResult): AttemptsResult {
        val failed = result.outcome as? K6Outcome.Failed ?: return result
        val what = WarmupPhase.listOf(phases).replace(",", ", ")
        val why = "too little time was left before the deadline for the $what phase; k6 not started"
        return result.copy(outcome = failed.copy(reason = Keys.RunConditions.REASON_TIMEOUT, message = why))
    }
}
