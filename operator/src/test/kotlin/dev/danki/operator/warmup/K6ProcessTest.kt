package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test

/** How a finished k6 run is sorted into success or a WarmupRun reason, against recorded summaries. */
class K6ProcessTest {
    private fun fixture(name: String) = K6SummaryParser.parse(javaClass.getResource("/k6/$name")!!.readText())

    private fun failed(summary: K6Summary, maxErrorRatio: Double = 0.05) =
        K6Process.classify(summary, maxErrorRatio).shouldBeInstanceOf<K6Outcome.Failed>()

    @Test
    fun `a converged run is a success`() {
        K6Process.classify(fixture("summary-converged.json"), 0.05).shouldBeInstanceOf<K6Outcome.Completed>()
    }

    @Test
    fun `an unreachable target is too many errors`() {
        failed(fixture("summary-unreachable.json")).reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
    }

    @Test
    fun `404 answers are errors, and the message names the status and the request`() {
        val failure = failed(fixture("summary-not-found.json"))
        failure.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
        failure.message shouldContain "404 from GET /exam/1"
    }

    @Test
    fun `a run cut off by its own time budget is a timeout, not too many errors`() {
        val failure = failed(fixture("summary-out-of-time.json"))
        failure.reason shouldBe Keys.RunConditions.REASON_TIMEOUT
        failure.message shouldContain "time budget ran out before the warm pass ended"
    }

    @Test
    fun `failures spread over phases above the ratio fail the run with an example`() {
        val converged = fixture("summary-converged.json")
        val spread =
            converged.copy(
                cold = converged.cold.copy(failures = 10, failureExample = "503 from GET /exams/1"),
                warm = converged.warm.copy(failures = 10),
                warmup = converged.warmup.copy(failures = 300),
            )
        val failure = failed(spread)
        failure.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
        failure.message shouldContain "320 of 1713 requests failed"
        failure.message shouldContain "e.g. 503 from GET /exams/1"
        K6Process.classify(spread, maxErrorRatio = 0.2).shouldBeInstanceOf<K6Outcome.Completed>()
    }

    @Test
    fun `a summary without warm percentiles is a k6 failure`() {
        val converged = fixture("summary-converged.json")
        failed(converged.copy(warm = converged.warm.copy(latency = null))).reason shouldBe
            Keys.RunConditions.REASON_K6_FAILED
    }
}
