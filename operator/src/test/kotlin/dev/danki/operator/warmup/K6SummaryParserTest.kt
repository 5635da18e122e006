package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.doubles.shouldBeGreaterThan
import io.kotest.matchers.doubles.shouldBeLessThan
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
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
        summary.warmup.requests shouldBe 1803
        summary.totalFailures shouldBe 0
        val cold = summary.cold.latency!!
        val warm = summary.warm.latency!!
        cold.p95 shouldBe 57.95128369999982
        warm.p95 shouldBeLessThan cold.p95
        listOf(cold.p25, cold.p50, cold.p75, cold.p90, cold.p95)
            .zipWithNext()
            .forEach { (a, b) -> a shouldBeLessThan b }
        summary.firstRequestAtMillis shouldBe 1795427173871
        val evidence = summary.evidence!!
        evidence.rule shouldBe "latency"
        evidence.requests shouldBe 1803
        evidence.blocks shouldBe 9
        evidence.blockSize shouldBe 200
        evidence.concurrency shouldBe 4
        evidence.lastBlockP95!! shouldBeGreaterThan 0.0
        evidence.jit shouldBe null
    }

    @Test
    fun `a run of the cold pass alone (PHASES=cold) is Measured, and completes as such a run`() {
        val summary = K6SummaryParser.parse(fixture("summary-cold-only.json"))
        summary.stopReason shouldBe StopReason.Measured
        summary.cold.requests shouldBe 20
        summary.warmup.requests shouldBe 0
        summary.warm.latency shouldBe null
        summary.firstRequestAtMillis shouldBeGreaterThan 0L
        K6Process.classify(summary, 0.05, setOf(WarmupPhase.COLD)).shouldBeInstanceOf<K6Outcome.Completed>()
        // asked for all three phases, the same summary lacks its warm pass
        K6Process.classify(summary, 0.05).shouldBeInstanceOf<K6Outcome.Failed>()
    }

    @Test
    fun `a JIT-settled run carries the compile time it watched`() {
        val summary = K6SummaryParser.parse(fixture("summary-jit-settled.json"))
        summary.stopReason shouldBe StopReason.JitSettled
        val jit = summary.evidence!!.jit!!
        summary.evidence!!.rule shouldBe "jit"
        jit.metric shouldBe "jvm_compilation_time_ms_total"
        jit.compileMs shouldBe 6384.0
        jit.lastBlockMs!! shouldBeLessThan 20.0
        jit.error shouldBe null
    }

    @Test
    fun `a metrics page without the JIT counter falls back to the latency rule, and says why`() {
        val evidence = K6SummaryParser.parse(fixture("summary-jit-missing.json")).evidence!!
        evidence.rule shouldBe "latency"
        evidence.jit!!.error!! shouldContain "no JIT counter (jvm_compilation_time_ms_total"
        evidence.jit!!.error!! shouldContain "/healthz"
    }

    @Test
    fun `an unreachable target aborts with a message and no percentiles`() {
        val summary = K6SummaryParser.parse(fixture("summary-unreachable.json"))
        summary.stopReason shouldBe StopReason.Aborted
        summary.abortMessage!! shouldContain "cold phase: 21 of 21 requests failed"
        summary.cold.latency shouldBe null
        summary.cold.failures shouldBe 21
        summary.evidence shouldBe null
    }

    @Test
    fun `a runner's summary carries its flow's notes, bounded whatever the flow wrote`() {
        val summary = K6SummaryParser.parse(fixture("summary-runner-exam-flow.json"))
        summary.notes shouldBe
            listOf("all 2403 warm-up submissions were rolled back (warmup: true)", "scores from 22.5% to 41.6%")
        K6SummaryParser.parse(fixture("summary-converged.json")).notes shouldBe emptyList()

        val tree = ObjectMapper().readTree(fixture("summary-runner-exam-flow.json")) as ObjectNode
        tree.putArray("notes").apply { repeat(50) { add("x".repeat(5_000)) } }
        val bounded = K6SummaryParser.parse(tree.toString()).notes
        bounded.size shouldBe K6SummaryParser.MAX_NOTES
        bounded.all { it.length == K6SummaryParser.MAX_NOTE_CHARS } shouldBe true
        tree.put("notes", "not a list")
        shouldThrow<K6SummaryException> { K6SummaryParser.parse(tree.toString()) }.message!! shouldContain "notes"
    }

    @Test
    fun `format drift fails loudly`() {
        shouldThrow<K6SummaryException> { K6SummaryParser.parse("not json") }.message!! shouldContain "not JSON"
        shouldThrow<K6SummaryException> { K6SummaryParser.parse("{\"version\":1}") }.message!! shouldContain "version 1"
        shouldThrow<K6SummaryException> {
            K6SummaryParser.parse("{\"version\":2,\"stopReason\":\"Bored\",\"phases\":{}}")
        }.message!! shouldContain "Bored"
        shouldThrow<K6SummaryException> {
            K6SummaryParser.parse("{\"version\":2,\"stopReason\":\"Converged\",\"phases\":{\"cold\":{\"requests\":1}}}")
        }.message!! shouldContain "no phase 'warmup'"
    }
}
