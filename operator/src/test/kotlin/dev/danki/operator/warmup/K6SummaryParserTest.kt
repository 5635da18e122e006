package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.danki.operator.controller.RunStatuses
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.doubles.shouldBeGreaterThan
import io.kotest.matchers.doubles.shouldBeLessThan
import io.kotest.matchers.doubles.shouldBeLessThanOrEqual
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
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
        // the closed loop's 1,603, less the first 100 that are the cold figures, and the drain's 10
        summary.warmup.requests shouldBe 1513
        summary.totalFailures shouldBe 0
        summary.cold.protocol shouldBe PassProtocol(PassProtocol.WARMUP, 100, concurrency = 4)
        summary.warm.protocol shouldBe PassProtocol(PassProtocol.CLOSED, 100, concurrency = 4)
        summary.warmup.protocol shouldBe null
        val cold = summary.cold.latency!!
        val warm = summary.warm.latency!!
        cold.p95 shouldBe 109.75601654999994
        warm.p95 shouldBeLessThan cold.p95
        listOf(cold.p25, cold.p50, cold.p75, cold.p90, cold.p95)
            .zipWithNext()
            .forEach { (a, b) -> a shouldBeLessThan b }
        summary.firstRequestAtMillis shouldBe 1795940981243
        val evidence = summary.evidence!!
        evidence.rule shouldBe "throughput"
        evidence.requests shouldBe 1603
        evidence.window shouldBe 3
        evidence.tolerance shouldBe 0.1
        evidence.drainSeconds shouldBe 1.0
        evidence.recentRate!! shouldBeLessThan evidence.earlierRate!! * 1.1
        evidence.blocks shouldBe 8
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
        jit.compileMs!! shouldBeGreaterThan 0.0
        // settled: the compiler's share of the last reads' wall time at most JIT_QUIET_SHARE
        jit.lastShare!! shouldBeLessThanOrEqual 0.5
        jit.error shouldBe null
    }

    @Test
    fun `a page with the process CPU counter too is judged by the cpu rule, its two windows' cost carried`() {
        val summary = K6SummaryParser.parse(fixture("summary-cpu-settled.json"))
        summary.stopReason shouldBe StopReason.JitSettled
        val evidence = summary.evidence!!
        evidence.rule shouldBe "cpu"
        evidence.jit!!.cpuMetric shouldBe "process_cpu_time_ns_total"
        val recent = evidence.recentCpuPerRequestMs!!
        val earlier = evidence.earlierCpuPerRequestMs!!
        recent shouldBeGreaterThan 0.0
        // converged: the cost fell by at most the tolerance of the recent window's
        (earlier - recent) shouldBeLessThanOrEqual evidence.tolerance!! * recent
        RunStatuses.evidence(evidence, 400).cpuMetric shouldBe "process_cpu_time_ns_total"
        RunStatuses.table(summary) shouldContain "CPU per request "
    }

    @Test
    fun `the jit rule's run, without a CPU counter, carries no CPU per request`() {
        val evidence = K6SummaryParser.parse(fixture("summary-jit-settled.json")).evidence!!
        evidence.jit!!.cpuMetric shouldBe null
        evidence.recentCpuPerRequestMs shouldBe null
        RunStatuses.table(K6SummaryParser.parse(fixture("summary-jit-settled.json"))) shouldNotContain "CPU per request"
    }

    @Test
    fun `a metrics page without the JIT counter falls back to the throughput rule, and says why`() {
        val evidence = K6SummaryParser.parse(fixture("summary-jit-missing.json")).evidence!!
        evidence.rule shouldBe "throughput"
        evidence.jit!!.error!! shouldContain "no JIT counter (jvm_compilation_time_ms_total"
        evidence.jit!!.error!! shouldContain "/healthz"
    }

    @Test
    fun `an unreachable target aborts with a message and no percentiles`() {
        val summary = K6SummaryParser.parse(fixture("summary-unreachable.json"))
        summary.stopReason shouldBe StopReason.Aborted
        summary.abortMessage!! shouldContain "cold phase: 20 of 20 requests failed"
        summary.cold.latency shouldBe null
        summary.cold.failures shouldBe 20
        // the cold figures are the warm-up's first answers, so its evidence shows the 20 it sent before giving up
        summary.evidence!!.requests shouldBe 20
        summary.evidence!!.blocks shouldBe 0
    }

    @Test
    fun `a runner's summary carries its flow's notes, bounded whatever the flow wrote`() {
        val summary = K6SummaryParser.parse(fixture("summary-runner-exam-flow.json"))
        summary.notes shouldBe
            listOf("all 1913 warm-up submissions were rolled back (warmup: true)", "scores from 22.5% to 41.6%")
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
