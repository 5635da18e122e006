package dev.danki.operator.metrics

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.testkit.ownedByReplicaSet
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Instant

class GatedPodsTest {
    private val now = Instant.parse("2026-11-23T20:00:00Z")

    private fun pod(
        name: String,
        gate: String? = null,
        gated: Boolean = true,
        reason: String = Keys.GateReasons.WARMED_UP,
    ): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("shop")
            .ownedByReplicaSet("exam-abc")
            .endMetadata()
            .withNewSpec()
            .apply { if (gated) addNewReadinessGate(Keys.GATE_CONDITION) }
            .endSpec()
            .withNewStatus()
            .apply {
                if (gate != null) {
                    addNewCondition()
                        .withType(Keys.GATE_CONDITION)
                        .withStatus(gate)
                        .withReason(reason)
                        .endCondition()
                }
            }.endStatus()
            .build()

    private fun run(phase: String?, deadline: Instant? = null) =
        WarmupRun().apply {
            spec = WarmupRunSpec()
            status =
                WarmupRunStatus().apply {
                    this.phase = phase
                    this.deadline = deadline?.toString()
                }
        }

    @Test
    fun `gated pods are counted per Deployment and state`() {
        val runs =
            mapOf(
                "b" to run(WarmupRun.PHASE_PENDING),
                "c" to run(WarmupRun.PHASE_RUNNING),
                "d" to run(WarmupRun.PHASE_FAILED),
            )
        val warmed = pod("a", gate = "True")
        val failed = pod("d", gate = "False")
        val released = pod("g", gate = "True", reason = Keys.GateReasons.WARMUP_FAILED_OPEN)
        val pods = listOf(warmed, pod("b"), pod("c"), failed, pod("e"), pod("f", gated = false), released)

        val counts = GatedPods.count(pods) { listOfNotNull(runs[it.metadata.name]) }

        counts.mapKeys { it.key.state } shouldBe
            mapOf("warmed" to 1, "queued" to 1, "warming" to 1, "failed" to 2, "pending" to 1)
        counts.keys.map { it.deployment }.toSet() shouldBe setOf("exam")
    }

    @Test
    fun `a pod is overdue when its open run is past its deadline`() {
        val runs =
            mapOf(
                "late" to run(WarmupRun.PHASE_RUNNING, now.minusSeconds(1)),
                "early" to run(WarmupRun.PHASE_RUNNING, now.plusSeconds(60)),
                "done" to run(WarmupRun.PHASE_FAILED, now.minusSeconds(60)),
            )
        val pods = listOf(pod("late"), pod("early"), pod("done", gate = "False"))

        GatedPods.overdue(pods, { listOfNotNull(runs[it.metadata.name]) }, now).values.toList() shouldBe listOf(1)
        val onTime = GatedPods.overdue(listOf(pod("early")), { listOfNotNull(runs[it.metadata.name]) }, now)
        onTime.values.toList() shouldBe listOf(0)
    }
}
