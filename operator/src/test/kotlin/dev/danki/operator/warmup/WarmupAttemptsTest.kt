package dev.danki.operator.warmup

import dev.danki.operator.kube.BackoffPolicy
import dev.danki.operator.kube.Keys
import io.kotest.matchers.comparables.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneOffset

/**
 * The retry loop around k6, with a stand-in k6: a shell script that writes a recorded summary or
 * exits non-zero, started by the real [K6Runner]. Time is a clock that moves 10 s per reading, so
 * "does another attempt fit before the deadline" is decided without waiting.
 */
class WarmupAttemptsTest {
    @TempDir
    lateinit var dir: File

    private val started = Instant.now()
    private val failures = mutableListOf<K6Outcome.Failed>()
    private var startedAttempts = 0

    private val listener =
        object : AttemptListener {
            override fun attemptStarted(attempt: Int) {
                startedAttempts = attempt
            }

            override fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration) {
                failures += failure
            }
        }

    /** Reads [started], then [started] + 10 s, + 20 s, ... */
    private class SteppingClock(
        private var now: Instant,
    ) : Clock() {
        override fun instant(): Instant = now.also { now = now.plusSeconds(STEP_SECONDS) }

        override fun getZone() = ZoneOffset.UTC

        override fun withZone(zone: java.time.ZoneId?) = this
    }

    private fun fixture(name: String) = File(javaClass.getResource("/k6/$name")!!.toURI()).path

    /** A k6 stand-in: each run appends to `runs`; runs up to [crashes] exit 3, later ones write [summary]. */
    private fun fakeK6(summary: String, crashes: Int = 0): String {
        val script = File(dir, "k6")
        script.writeText(
            """
            #!/bin/sh
            echo run >> '${dir.path}/runs'
            n=${'$'}(wc -l < '${dir.path}/runs')
            if [ "${'$'}n" -le $crashes ]; then echo "panic: boom" >&2; exit 3; fi
            /usr/bin/env > '${dir.path}/env'
            echo "${'$'}@" > '${dir.path}/args'
            cp "${'$'}PATHS_FILE" '${dir.path}/paths'
            cp '${fixture(summary)}' "${'$'}SUMMARY_PATH"
            """.trimIndent() + "\n",
        )
        script.setExecutable(true)
        return script.path
    }

    private fun runs() = File(dir, "runs").takeIf { it.isFile }?.readLines()?.size ?: 0

    private fun attempts(
        binary: String,
        deadlineIn: Duration = Duration.ofSeconds(30),
        task: WarmupTask = WarmupTask("ns/run", "ns/pod"),
    ): AttemptsResult {
        val runner = K6Runner(binary, "warmup.js", dir.toPath().resolve("work"))
        val backoff = BackoffPolicy(Duration.ofMillis(1), Duration.ofMillis(2))
        val request = K6Request("ns.run", "http://127.0.0.1:1", WarmupPlan(port = 1), started.plus(deadlineIn), 0.05)
        return WarmupAttempts(runner, backoff, SteppingClock(started)).run(request, task, listener)
    }

    @Test
    fun `a k6 that succeeds at once is one attempt`() {
        val result = attempts(fakeK6("summary-converged.json"))
        result.outcome.shouldBeInstanceOf<K6Outcome.Completed>()
        result.attempts shouldBe 1
        result.firstRequestAtMillis shouldBe 1795940981243
        result.k6StartedAtMillis shouldBeGreaterThan 0
        failures shouldBe emptyList()
    }

    @Test
    fun `k6 gets exactly the variables warmup-js reads, none of the operator's, and no REST API`() {
        attempts(fakeK6("summary-converged.json")).outcome.shouldBeInstanceOf<K6Outcome.Completed>()
        val names =
            File(dir, "env")
                .readLines()
                .map { it.substringBefore('=') }
                .filter { it.isNotEmpty() }
                .toSet()
        names shouldBe
            setOf(
                "BASE_URL",
                "RATE",
                "REQUESTS",
                "COLD_PASS",
                "DRAIN_S",
                "WARMUP_RATE",
                "WARMUP_CONCURRENCY",
                "MIN_WARMUP_REQUESTS",
                "MAX_WARMUP_REQUESTS",
                "JIT_METRICS_URL",
                "TARGET_P95_MS",
                "TIME_BUDGET_S",
                "MAX_ERROR_RATIO",
                "PATHS_FILE",
                "HEADERS",
                "ACCEPT_REDIRECTS",
                "SUMMARY_PATH",
                "PHASES",
                "PWD",
            )
        File(dir, "args").readText() shouldContain "--address  "
        File(dir, "paths").readText() shouldBe """[{"method":"GET","path":"/","body":null}]"""
    }

    @Test
    fun `k6 start-up is the time from starting k6 to its first request, unknown without one`() {
        AttemptsResult(K6Outcome.Cancelled, 1, firstRequestAtMillis = 10_060, k6StartedAtMillis = 10_000)
            .k6StartupMillis shouldBe 60
        AttemptsResult(K6Outcome.Cancelled, 1, firstRequestAtMillis = 0, k6StartedAtMillis = 10_000)
            .k6StartupMillis shouldBe null
    }

    @Test
    fun `a k6 crash is retried and the next attempt's result counts`() {
        val result = attempts(fakeK6("summary-converged.json", crashes = 1))
        result.outcome.shouldBeInstanceOf<K6Outcome.Completed>()
        result.attempts shouldBe 2
        failures.single().reason shouldBe Keys.RunConditions.REASON_K6_FAILED
        failures.single().message shouldContain "k6 exited with code 3: panic: boom"
    }

    @Test
    fun `a k6 that cannot start is a failed attempt with its cause, retried like any other`() {
        val result = attempts(File(dir, "no-such-k6").path)
        val failure = result.outcome.shouldBeInstanceOf<K6Outcome.Failed>()
        failure.reason shouldBe Keys.RunConditions.REASON_K6_NOT_STARTED
        failure.message shouldContain "k6 could not start"
        failure.message shouldContain "no-such-k6"
        failure.message shouldContain "gave up after 3 attempts"
        result.attempts shouldBe 3
        startedAttempts shouldBe 3
        failures.size shouldBe 2
    }

    @Test
    fun `too many failed requests are retried until no attempt fits before the deadline`() {
        val result = attempts(fakeK6("summary-not-found.json"))
        val failure = result.outcome.shouldBeInstanceOf<K6Outcome.Failed>()
        failure.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
        failure.message shouldContain "404 from GET /exam/1"
        runs() shouldBe 3
    }

    @Test
    fun `a run out of its time budget is a timeout and not retried`() {
        val result = attempts(fakeK6("summary-out-of-time.json"))
        result.outcome.shouldBeInstanceOf<K6Outcome.Failed>().reason shouldBe Keys.RunConditions.REASON_TIMEOUT
        runs() shouldBe 1
    }

    @Test
    fun `a warm-up that waited in the queue until too little time was left fails without starting k6`() {
        val result = attempts(fakeK6("summary-converged.json"), deadlineIn = Duration.ofSeconds(3))
        val failure = result.outcome.shouldBeInstanceOf<K6Outcome.Failed>()
        failure.reason shouldBe Keys.RunConditions.REASON_QUEUE_TIMEOUT
        failure.message shouldContain "k6 not started"
        result.attempts shouldBe 0
        runs() shouldBe 0
    }

    @Test
    fun `a cancelled task starts no attempt`() {
        val task = WarmupTask("ns/run", "ns/pod").apply { cancel() }
        attempts(fakeK6("summary-converged.json"), task = task).outcome shouldBe K6Outcome.Cancelled
        runs() shouldBe 0
    }

    private companion object {
        const val STEP_SECONDS = 10L
    }
}
