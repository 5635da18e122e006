package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import java.io.File
import java.time.Duration
import java.time.Instant
import java.util.concurrent.TimeUnit

class K6Process(
    private val process: Process,
    private val summary: File,
    private val log: File,
    private val request: K6Request,
    /** Files written for k6 to read, deleted with its output. */
    private val inputs: List<File> = emptyList(),
) : RunningAttempt {
    @Volatile private var cancelled = false

    /** Waits for k6 to end (at most until the deadline) and classifies the result. */
    override fun await(): K6Outcome {
        val wait = Duration.between(Instant.now(), request.deadline).toMillis().coerceAtLeast(0)
        val ended = process.waitFor(wait, TimeUnit.MILLISECONDS)
        if (!ended) {
            kill()
            return K6Outcome.Failed(TIMEOUT, "k6 still running at the deadline; killed")
        }
        if (cancelled) return K6Outcome.Cancelled
        return readSummary()
    }

    private fun readSummary(): K6Outcome {
        val exit = process.exitValue()
        if (exit != 0) return K6Outcome.Failed(K6_FAILED, "k6 exited with code $exit: ${logTail()}")
        if (!summary.isFile) return K6Outcome.Failed(K6_FAILED, "k6 wrote no summary: ${logTail()}")
        return try {
            classify(K6SummaryParser.parse(summary.readText()), request.maxErrorRatio, request.phases)
        } catch (e: K6SummaryException) {
            K6Outcome.Failed(K6_FAILED, e.message ?: "unreadable k6 summary")
        }
    }

    /** Stops k6 and anything it started, now. */
    override fun cancel() {
        cancelled = true
        kill()
    }

    private fun kill() {
        process.descendants().forEach { it.destroyForcibly() }
        process.destroyForcibly()
        process.waitFor(KILL_WAIT_MILLIS, TimeUnit.MILLISECONDS)
    }

    override fun cleanUp() {
        summary.delete()
        log.delete()
        inputs.forEach { it.delete() }
    }

    private fun logTail(): String = runCatching { log.readText().takeLast(LOG_TAIL).trim() }.getOrDefault("")

    companion object {
        private const val LOG_TAIL = 600
        private const val PERCENT = 100
        private const val KILL_WAIT_MILLIS = 2_000L
        private const val K6_FAILED = Keys.RunConditions.REASON_K6_FAILED
        private const val TIMEOUT = Keys.RunConditions.REASON_TIMEOUT
        private const val TOO_MANY_ERRORS = Keys.RunConditions.REASON_TOO_MANY_ERRORS
        private const val OUT_OF_TIME = "k6 ran out of its time budget before the warm pass ended"
        private const val ABORTED = "k6 aborted the warm-up"

        /**
         * Sorts a finished k6 run into success or one failure reason; the one place that decides. [phases]:
         * what the run was asked to send, whose measurement passes must have percentiles.
         */
        fun classify(parsed: K6Summary, maxErrorRatio: Double, phases: Set<WarmupPhase> = WarmupPhase.ALL): K6Outcome {
            val ratio = if (parsed.totalRequests == 0L) 1.0 else parsed.totalFailures.toDouble() / parsed.totalRequests
            val (reason, message) =
                when {
                    parsed.stopReason == StopReason.OutOfTime -> TIMEOUT to (parsed.abortMessage ?: OUT_OF_TIME)
                    parsed.stopReason == StopReason.Aborted -> TOO_MANY_ERRORS to (parsed.abortMessage ?: ABORTED)
                    ratio > maxErrorRatio -> TOO_MANY_ERRORS to ratioMessage(parsed, maxErrorRatio)
                    missingPercentiles(parsed, phases) -> K6_FAILED to "k6 summary has no cold or warm percentiles"
                    else -> return K6Outcome.Completed(parsed)
                }
            return K6Outcome.Failed(reason, message, parsed)
        }

        private fun missingPercentiles(parsed: K6Summary, phases: Set<WarmupPhase>) =
            (WarmupPhase.COLD in phases && parsed.cold.latency == null) ||
                (WarmupPhase.WARM in phases && parsed.warm.latency == null)

        private fun ratioMessage(parsed: K6Summary, maxErrorRatio: Double): String {
            val example = parsed.failureExample?.let { ", e.g. $it" } ?: ""
            return "${parsed.totalFailures} of ${parsed.totalRequests} requests failed " +
                "(an error status, a redirect, or no answer$example), more than ${(maxErrorRatio * PERCENT).toInt()}%"
        }
    }
}
