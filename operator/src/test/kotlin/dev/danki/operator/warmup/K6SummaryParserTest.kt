package dev.danki.operator.warmup

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.doubles.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

/** Parses summaries recorded from real k6 v1.8.1 runs of k6-scripts/warmup.js. */
class K6SummaryParserTest {
    private fun fixture(name: String) = javaClass.getResource("/k6/$name")!!.readText()

    @Test
    fun `a converged run against the sample service has cold and warm percentiles`() {
        val summary = K6SummaryParser.parse(fixture("summary-converged.json"))
        summary.stopReason shouldBe StopReason.Converged
        summary.cold.requests shouldBe 100
        summary.warm.requests shouldBe 100
        summary.warmup.requests shouldBe 4500
        summary.totalFailures shouldBe 0
        val cold = summary.cold.latency!!
        val warm = summary.warm.latency!!
        cold.p95 shouldBe 347.06313384999976
        warm.p95 shouldBeLessThan cold.p95
        listOf(cold.p25, cold.p50, cold.p75, cold.p90, cold.p95)
            .zipWithNext()
            .forEach { (a, b) -> a shouldBeLessThan b }
        summary.firstRequestAtMillis shouldBe 1795320545863
    }

    @Test
    fun `an unreachable target aborts with a message and no percentiles`() {
        val summary = K6SummaryParser.parse(fixture("summary-unreachable.json"))
        summary.stopReason shouldBe StopReason.Aborted
        summary.abortMessage!! shouldContain "cold phase: 21 of 21 requests failed"
        summary.cold.latency shouldBe null
        summary.cold.failures shouldBe 21
    }

    @Test
    fun `format drift fails loudly`() {
        shouldThrow<K6SummaryException> { K6SummaryParser.parse("not json") }.message!! shouldContain "not JSON"
        shouldThrow<K6SummaryException> { K6SummaryParser.parse("{\"version\":2}") }.message!! shouldContain "version 2"
        shouldThrow<K6SummaryException> {
            K6SummaryParser.parse("{\"version\":1,\"stopReason\":\"Bored\",\"phases\":{}}")
        }.message!! shouldContain "Bored"
        shouldThrow<K6SummaryException> {
            K6SummaryParser.parse("{\"version\":1,\"stopReason\":\"Converged\",\"phases\":{\"cold\":{\"requests\":1}}}")
        }.message!! shouldContain "no phase 'warmup'"
    }
}
