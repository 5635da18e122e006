package dev.danki.operator.controller

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.RunConditions
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import io.kotest.matchers.comparables.shouldBeGreaterThan
import io.kotest.matchers.comparables.shouldBeLessThan
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

class RunRetryTest {
    private val now = Instant.parse("2026-11-23T08:00:00Z")
    private val digest = RunRetry.configDigest(mapOf(Keys.Annotations.PATHS to "GET /a"))

    private fun failed(
        reason: String = RunConditions.REASON_TOO_MANY_ERRORS,
        rewarm: String? = null,
        configDigest: String? = digest,
        retries: Int? = null,
        failedAgo: Duration = Duration.ofSeconds(1),
    ) = WarmupRunStatus().apply {
        phase = WarmupRun.PHASE_FAILED
        this.reason = reason
        this.rewarm = rewarm
        this.configDigest = configDigest
        this.retries = retries
        completionTime = now.minus(failedAgo).toString()
    }

    private fun retry(
        status: WarmupRunStatus?,
        policy: String = "closed",
        rewarm: String? = null,
        current: String = digest,
    ) = RunRetry.of(status, policy, "exam-abc-1", rewarm, current, now)

    @Test
    fun `a new rewarm value retries a failed run under either policy, the same value does not`() {
        retry(failed(), rewarm = "now").cause!! shouldContain "rewarm requested (danki.dev/rewarm=now)"
        retry(failed(), policy = "open", rewarm = "now").cause.shouldNotBeNull()
        retry(failed(rewarm = "now"), rewarm = "now").cause.shouldBeNull()
        retry(failed(rewarm = "now"), rewarm = "again").cause.shouldNotBeNull()
    }

    @Test
    fun `only a failed run is retried`() {
        for (phase in listOf(WarmupRun.PHASE_SUCCEEDED, WarmupRun.PHASE_RUNNING, WarmupRun.PHASE_PENDING)) {
            val status = failed().apply { this.phase = phase }
            retry(status, rewarm = "now") shouldBe RunRetry()
        }
        retry(null, rewarm = "now") shouldBe RunRetry()
    }

    @Test
    fun `changed warm-up annotations retry a closed failure, not an open one`() {
        val changed = RunRetry.configDigest(mapOf(Keys.Annotations.PATHS to "GET /b"))
        retry(failed(), current = changed).cause!! shouldContain "annotations changed"
        retry(failed(), policy = "open", current = changed).cause.shouldBeNull()
        // a run recorded before digests were kept is not retried on that account
        retry(failed(configDigest = null), current = changed).cause.shouldBeNull()
    }

    @Test
    fun `the digest ignores other annotations and the on-off switch, and keys' order`() {
        val base = mapOf(Keys.Annotations.PATHS to "GET /a", Keys.Annotations.RATE to "20")
        val same = base.entries.reversed().associate { it.key to it.value }
        RunRetry.configDigest(same) shouldBe RunRetry.configDigest(base)
        RunRetry.configDigest(base + (Keys.Annotations.WARMUP to "enabled")) shouldBe RunRetry.configDigest(base)
        RunRetry.configDigest(base + ("team" to "exams")) shouldBe RunRetry.configDigest(base)
        RunRetry.configDigest(base + (Keys.Annotations.RATE to "30")) shouldNotBe RunRetry.configDigest(base)
    }

    @Test
    fun `a closed failure on danki's side is retried after a growing back-off`() {
        val queued = failed(RunConditions.REASON_QUEUE_TIMEOUT, failedAgo = Duration.ofSeconds(5))
        val wait = retry(queued)
        wait.cause.shouldBeNull()
        wait.dueIn!! shouldBeGreaterThan Duration.ZERO
        wait.dueIn!! shouldBeLessThan Duration.ofSeconds(36)
        retry(failed(RunConditions.REASON_K6_NOT_STARTED, failedAgo = Duration.ofMinutes(1))).cause!! shouldStartWith
            "K6NotStarted was on danki's side; retry 1"
        // the fourth retry waits at least 4 min (30 s doubled three times)
        val late = failed(RunConditions.REASON_QUEUE_TIMEOUT, retries = 3, failedAgo = Duration.ofMinutes(3))
        retry(late).dueIn.shouldNotBeNull()
        retry(queued, policy = "open") shouldBe RunRetry()
    }

    @Test
    fun `a failure on the target's side is final without a user's word`() {
        for (reason in listOf(RunConditions.REASON_TOO_MANY_ERRORS, RunConditions.REASON_TIMEOUT)) {
            retry(failed(reason, failedAgo = Duration.ofHours(1))) shouldBe RunRetry()
        }
    }

    @Test
    fun `a long rewarm value is kept as its digest`() {
        RunRetry.rewarmToken("now") shouldBe "now"
        RunRetry.rewarmToken("") shouldBe null
        RunRetry.rewarmToken("x".repeat(10_000))!! shouldStartWith "sha256:"
        val long = "x".repeat(10_000)
        retry(failed(rewarm = RunRetry.rewarmToken(long)), rewarm = long).cause.shouldBeNull()
    }
}
