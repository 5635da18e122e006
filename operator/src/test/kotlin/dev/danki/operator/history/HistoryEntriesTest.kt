package dev.danki.operator.history

import dev.danki.operator.kube.LatencyPercentiles
import dev.danki.operator.kube.RequestCounts
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupRunStatus
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class HistoryEntriesTest {
    private fun entry(run: String, ended: String = "2026-11-24T08:00:00Z") =
        WarmupHistoryEntry().apply {
            this.run = run
            completionTime = ended
        }

    @Test
    fun `an entry carries what a runbook needs once the pod is gone`() {
        val status =
            WarmupRunStatus().apply {
                phase = "Succeeded"
                podName = "exam-7d9-x1"
                reason = "Succeeded"
                stopReason = "Converged"
                startTime = "2026-11-24T08:00:00Z"
                completionTime = "2026-11-24T08:00:17.4Z"
                duration = "17.4s"
                queueWait = "0.1s"
                requests = RequestCounts().apply { total = 2_300 }
                cold = LatencyPercentiles().apply { p95 = 3045.0 }
                warm = LatencyPercentiles().apply { p95 = 94.0 }
            }
        val e = HistoryEntries.of("exam-7d9-x1-r1", "node-a", status)
        listOf(e.run, e.pod, e.node, e.phase, e.reason, e.stopReason, e.duration, e.queueWait) shouldBe
            listOf("exam-7d9-x1-r1", "exam-7d9-x1", "node-a", "Succeeded", "Succeeded", "Converged", "17.4s", "0.1s")
        listOf(e.startTime, e.completionTime) shouldBe listOf("2026-11-24T08:00:00Z", "2026-11-24T08:00:17.4Z")
        e.requests shouldBe 2_300L
        e.cold?.p95 shouldBe 3045.0
        e.warm?.p95 shouldBe 94.0
    }

    @Test
    fun `the newest goes first and the oldest beyond the retention drop out`() {
        val kept = listOf(entry("c"), entry("b"), entry("a"))
        HistoryEntries.prepend(kept, entry("d"), 3).map { it.run } shouldBe listOf("d", "c", "b")
        HistoryEntries.prepend(emptyList(), entry("a"), 3).map { it.run } shouldBe listOf("a")
    }

    @Test
    fun `the same result written twice is kept once, a retried run's second result is its own entry`() {
        val kept = listOf(entry("a", "2026-11-24T08:00:00Z"))
        HistoryEntries.holds(kept, entry("a", "2026-11-24T08:00:00Z")) shouldBe true
        HistoryEntries.holds(kept, entry("a", "2026-11-24T08:05:00Z")) shouldBe false
        HistoryEntries.prepend(kept, entry("a", "2026-11-24T08:00:00Z"), 3).size shouldBe 1
        HistoryEntries.prepend(kept, entry("a", "2026-11-24T08:05:00Z"), 3).map { it.completionTime } shouldBe
            listOf("2026-11-24T08:05:00Z", "2026-11-24T08:00:00Z")
    }
}
