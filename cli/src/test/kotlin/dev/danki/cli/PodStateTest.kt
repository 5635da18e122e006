package dev.danki.cli

import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class PodStateTest {
    private fun pod(scheduled: Boolean = true): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-a")
            .withUid("uid-a")
            .endMetadata()
            .withNewStatus()
            .apply {
                if (!scheduled) {
                    addNewCondition()
                        .withType("PodScheduled")
                        .withStatus("False")
                        .withReason("Unschedulable")
                        .withMessage("0/1 nodes are available: 1 Insufficient cpu.")
                        .endCondition()
                }
            }.endStatus()
            .build()

    private fun run(restarts: Int, phase: String?, uid: String = "uid-a") =
        WarmupRun().apply {
            spec =
                WarmupRunSpec().apply {
                    podName = "web-a"
                    podUid = uid
                    restartCount = restarts
                }
            status = WarmupRunStatus().apply { this.phase = phase }
        }

    @Test
    fun `a pod that cannot be scheduled says why`() {
        PodState.waitingReason(pod(scheduled = false)) shouldBe
            "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."
        PodState.waitingReason(pod()) shouldBe null
    }

    @Test
    fun `the run of the latest container restart speaks for the pod, never another pod's of the same name`() {
        val earlier = run(0, WarmupRun.PHASE_FAILED)
        val otherPod = run(2, WarmupRun.PHASE_SUCCEEDED, uid = "old")
        val runs = listOf(earlier, run(1, WarmupRun.PHASE_RUNNING), otherPod)

        PodState.of(PodState.latestRun(pod(), runs)) shouldBe PodState.WARMING
        PodState.of(null) shouldBe PodState.PENDING
        PodState.of(run(0, null)) shouldBe PodState.QUEUED
        PodState.of(run(0, WarmupRun.PHASE_CANCELLED)) shouldBe PodState.FAILED
    }
}
