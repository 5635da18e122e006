package dev.danki.cli

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.LatencyPercentiles
import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupHistorySpec
import dev.danki.operator.kube.WarmupHistoryStatus
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import org.junit.jupiter.api.Test

class HistoryTableTest {
    private val ref = DeploymentRef("exams", "web")

    private val newest =
        entry("web-b", "Succeeded", "2026-11-24T10:02:11Z", "41.0s").apply {
            reason = "Succeeded"
            stopReason = "Converged"
            requests = 1200
            cold = percentiles(812.25)
            warm = percentiles(9.75)
        }
    private val failed =
        entry("web-c", "Failed", "2026-11-24T10:01:30Z", "2m00s").apply {
            reason = "TooManyErrors"
            stopReason = "Timeout"
            requests = 300
        }
    private val older =
        entry("web-a", "Succeeded", "2026-11-23T09:00:00Z", "20.0s").apply {
            stopReason = "JitSettled"
            cold = percentiles(700.0)
            warm = percentiles(8.0)
        }

    @Test
    fun `the table has a heading with the counts, one row per entry, and the durations line`() {
        val lines = HistoryTable.render(history(newest, failed, older), ResultTable.Format.TABLE).lines()

        lines[0] shouldBe ""
        lines[1] shouldBe "history (last 3 of 57 results, newest first)"
        lines[2] shouldBe
            "ENDED                 POD    RESULT         COLD-P95  WARM-P95  REQUESTS  STOP        DURATION"
        lines[3] shouldBe
            "2026-11-24T10:02:11Z  web-b  Succeeded      812.3     9.8       1200      Converged   41.0s"
        lines[5] shouldStartWith "2026-11-23T09:00:00Z  web-a  Succeeded      700.0     8.0       -"
        lines[6] shouldBe "slowest duration 41.0s, median duration 30.5s (over 2 succeeded)"
    }

    @Test
    fun `a failed entry shows its reason and counts in neither duration`() {
        val text = HistoryTable.render(history(failed), ResultTable.Format.TABLE)

        text shouldContain "web-c  TooManyErrors  -         -         300       Timeout  2m00s"
        text shouldContain "slowest duration -, median duration - (no succeeded warm-up kept)"
    }

    @Test
    fun `an entry without figures gets dashes, not a broken row`() {
        val bare = WarmupHistoryEntry().apply { run = "web-x-1" }

        val lines = HistoryTable.render(history(bare), ResultTable.Format.TABLE).lines()

        lines[3] shouldBe "-      web-x-1  -       -         -         -         -     -"
        lines[4] shouldBe "slowest duration -, median duration - (no succeeded warm-up kept)"
    }

    @Test
    fun `markdown has a heading and a table that pastes into a ticket`() {
        val text = HistoryTable.render(history(newest, failed), ResultTable.Format.MARKDOWN)

        text shouldContain "### history (last 2 of 57 results, newest first)\n\n"
        text shouldContain "| ENDED | POD | RESULT | COLD-P95 | WARM-P95 | REQUESTS | STOP | DURATION |\n"
        text shouldContain "|---|---|---|---|---|---|---|---|\n"
        text shouldContain "| 2026-11-24T10:01:30Z | web-c | TooManyErrors | - | - | 300 | Timeout | 2m00s |"
        text shouldContain "slowest duration 41.0s, median duration 41.0s (over 1 succeeded)"
    }

    @Test
    fun `json keeps the entries as the WarmupHistory has them, with their durations`() {
        val lookup = HistoryLookup.Found(history(newest, older))

        val text = ResultTable.json(emptyList(), null, "history" to HistoryTable.json(lookup))
        val history = ObjectMapper().readTree(text)["history"]

        history["deployment"].asText() shouldBe "web"
        history["retention"].asInt() shouldBe 20
        history["recorded"].asLong() shouldBe 57
        history["entries"].size() shouldBe 2
        history["entries"][0]["warm"]["p95"].asDouble() shouldBe 9.75
        history["entries"][0]["completionTime"].asText() shouldBe "2026-11-24T10:02:11Z"
        history["entries"][1].has("requests") shouldBe false
        history["durations"]["slowest"].asText() shouldBe "41.0s"
        history["durations"]["median"].asText() shouldBe "30.5s"
        history["durations"]["succeeded"].asInt() shouldBe 2
    }

    @Test
    fun `json has a null history when there is none`() {
        val text = ResultTable.json(emptyList(), null, "history" to HistoryTable.json(HistoryLookup.Absent(true)))

        ObjectMapper().readTree(text)["history"].isNull shouldBe true
        HistoryTable.json(HistoryLookup.Denied) shouldBe null
    }

    @Test
    fun `no history says whether none is recorded yet or the chart predates it`() {
        HistoryTable.note(HistoryLookup.Absent(served = true), ref)!! shouldStartWith
            "no warm-up history yet for deployment/web"
        HistoryTable.note(HistoryLookup.Absent(served = false), ref)!! shouldContain
            "warmuphistories.danki.dev) is not installed"
        HistoryTable.note(HistoryLookup.Absent(served = null), ref) shouldBe
            "no warm-up history for deployment/web (none recorded yet, or a danki chart older than WarmupHistory)"
        HistoryTable.note(HistoryLookup.Found(history(newest)), ref) shouldBe null
    }

    @Test
    fun `a denied read names the missing right`() {
        HistoryTable.note(HistoryLookup.Denied, ref)!! shouldContain
            "RBAC denies get warmuphistories.danki.dev in namespace exams"
    }

    private fun history(vararg entries: WarmupHistoryEntry) =
        WarmupHistory().apply {
            metadata = ObjectMetaBuilder().withName("web").withNamespace("exams").build()
            spec = WarmupHistorySpec().apply { deployment = "web" }
            status =
                WarmupHistoryStatus().apply {
                    retention = 20
                    recorded = 57
                    this.entries = entries.toList()
                }
        }

    private fun entry(pod: String, phase: String, ended: String, duration: String) =
        WarmupHistoryEntry().apply {
            run = "$pod-0"
            this.pod = pod
            this.phase = phase
            completionTime = ended
            this.duration = duration
        }

    private fun percentiles(p95: Double) = LatencyPercentiles().apply { this.p95 = p95 }
}
