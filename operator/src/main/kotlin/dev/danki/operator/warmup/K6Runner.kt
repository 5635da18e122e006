package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.ObjectMapper
import java.io.File
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.time.Instant
import java.util.concurrent.TimeUnit

/** Everything one k6 attempt needs: where to send, what, and how long it may take. */
data class K6Request(
    val runName: String,
    val baseUrl: String,
    val plan: WarmupPlan,
    /** Hard stop: k6 is killed at this moment, and told to stop itself a little before. */
    val deadline: Instant,
    val maxErrorRatio: Double,
)

/** How one k6 attempt ended. */
sealed interface K6Outcome {
    data class Completed(
        val summary: K6Summary,
    ) : K6Outcome

    /** [reason] is a WarmupRun condition reason (`K6Failed`, `TooManyErrors`, `Timeout`). */
    data class Failed(
        val reason: String,
        val message: String,
        val summary: K6Summary? = null,
    ) : K6Outcome

    data object Cancelled : K6Outcome
}

/**
 * Starts `k6 run warmup.js` as a child process, one per attempt. The process gets a hard deadline
 * (and stops itself before it, so even an orphan ends), and [K6Process.cancel] kills it at once.
 */
class K6Runner(
    private val binary: String,
    private val script: String,
    private val workDir: Path,
) {
    private val json = ObjectMapper()

    fun start(request: K6Request): K6Process {
        Files.createDirectories(workDir)
        val summary = workDir.resolve("${request.runName}.summary.json").toFile().apply { delete() }
        val log = workDir.resolve("${request.runName}.k6.log").toFile()
        val builder =
            ProcessBuilder(DEATH_SIGNAL + listOf(binary, "run", "--no-usage-report", "--quiet", "--no-color", script))
                .redirectErrorStream(true)
                .redirectOutput(log)
        builder.environment().putAll(environment(request, summary))
        return K6Process(builder.start(), summary, log, request)
    }

    /** The env vars `warmup.js` reads; see its header comment. */
    fun environment(
        request: K6Request,
        summary: File,
    ): Map<String, String> {
        val plan = request.plan
        val remaining = Duration.between(Instant.now(), request.deadline).coerceAtLeast(Duration.ofSeconds(1))
        val budget = remaining.minus(STOP_MARGIN).coerceAtLeast(Duration.ofSeconds(1))
        return mapOf(
            "BASE_URL" to request.baseUrl,
            "RATE" to plan.rate.toString(),
            "REQUESTS" to plan.passRequests.toString(),
            "WARMUP_RATE" to plan.warmupRate.toString(),
            "MAX_WARMUP_REQUESTS" to plan.maxWarmupRequests.toString(),
            "TARGET_P95_MS" to (plan.targetP95?.toMillis()?.toString() ?: ""),
            "TIME_BUDGET_S" to (budget.toMillis() / MILLIS).toString(),
            "MAX_ERROR_RATIO" to request.maxErrorRatio.toString(),
            "PATHS" to
                json.writeValueAsString(
                    plan.requests.map { mapOf("method" to it.method, "path" to it.path, "body" to it.body) },
                ),
            "HEADERS" to json.writeValueAsString(plan.headers),
            "SUMMARY_PATH" to summary.absolutePath,
        )
    }

    companion object {
        /** k6 is told to finish this much before the hard deadline, so its summary gets written. */
        val STOP_MARGIN: Duration = Duration.ofSeconds(3)

        /**
         * util-linux `setpriv --pdeathsig KILL` then execs k6: the kernel kills k6 when the operator
         * dies, even by SIGKILL, so no k6 outlives its operator. Without setpriv, k6 still stops at its
         * own time budget.
         */
        private val DEATH_SIGNAL: List<String> =
            listOf("/usr/bin/setpriv", "/bin/setpriv")
                .firstOrNull { File(it).canExecute() }
                ?.let { listOf(it, "--pdeathsig", "KILL") } ?: emptyList()
        private const val MILLIS = 1_000.0
    }
}

/** One running k6 process. */
class K6Process(
    private val process: Process,
    private val summary: File,
    private val log: File,
    private val request: K6Request,
) {
    @Volatile private var cancelled = false

    /** Waits for k6 to end (at most until the deadline) and classifies the result. */
    fun await(): K6Outcome {
        val wait = Duration.between(Instant.now(), request.deadline).toMillis().coerceAtLeast(0)
        val ended = process.waitFor(wait, TimeUnit.MILLISECONDS)
        if (!ended) {
            kill()
            return K6Outcome.Failed("Timeout", "k6 still running at the deadline; killed")
        }
        if (cancelled) return K6Outcome.Cancelled
        return readSummary()
    }

    private fun readSummary(): K6Outcome {
        val exit = process.exitValue()
        if (exit != 0) return K6Outcome.Failed("K6Failed", "k6 exited with code $exit: ${logTail()}")
        if (!summary.isFile) return K6Outcome.Failed("K6Failed", "k6 wrote no summary: ${logTail()}")
        return try {
            classify(K6SummaryParser.parse(summary.readText()))
        } catch (e: K6SummaryException) {
            K6Outcome.Failed("K6Failed", e.message ?: "unreadable k6 summary")
        }
    }

    private fun classify(parsed: K6Summary): K6Outcome {
        if (parsed.stopReason == StopReason.Aborted) {
            return K6Outcome.Failed("TooManyErrors", parsed.abortMessage ?: "k6 aborted the warm-up", parsed)
        }
        val ratio = if (parsed.totalRequests == 0L) 1.0 else parsed.totalFailures.toDouble() / parsed.totalRequests
        if (ratio > request.maxErrorRatio) {
            val message =
                "${parsed.totalFailures} of ${parsed.totalRequests} requests failed " +
                    "(5xx or no answer), more than ${(request.maxErrorRatio * PERCENT).toInt()}%"
            return K6Outcome.Failed("TooManyErrors", message, parsed)
        }
        if (parsed.cold.latency == null || parsed.warm.latency == null) {
            return K6Outcome.Failed("K6Failed", "k6 summary has no cold or warm percentiles", parsed)
        }
        return K6Outcome.Completed(parsed)
    }

    /** Stops k6 and anything it started, now. */
    fun cancel() {
        cancelled = true
        kill()
    }

    private fun kill() {
        process.descendants().forEach { it.destroyForcibly() }
        process.destroyForcibly()
        process.waitFor(KILL_WAIT_MILLIS, TimeUnit.MILLISECONDS)
    }

    fun isAlive() = process.isAlive

    fun cleanUp() {
        summary.delete()
        log.delete()
    }

    private fun logTail(): String = runCatching { log.readText().takeLast(LOG_TAIL).trim() }.getOrDefault("")

    companion object {
        private const val LOG_TAIL = 600
        private const val PERCENT = 100
        private const val KILL_WAIT_MILLIS = 2_000L
    }
}
