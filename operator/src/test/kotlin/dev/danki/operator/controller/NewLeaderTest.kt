package dev.danki.operator.controller

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.testkit.readyGatedPod
import dev.danki.operator.testkit.readyGatedPodRun
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupPools
import io.fabric8.kubernetes.api.model.Pod
import io.javaoperatorsdk.operator.api.reconciler.Context
import io.mockk.every
import io.mockk.mockk
import io.mockk.verify
import org.junit.jupiter.api.Test

/**
 * A leader that stops mid-way leaves only cluster state behind: the pod, its gate and its WarmupRun.
 * A new leader, with none of the old one's memory (no final results, no pool, no back-offs), must
 * reach the right decision from that state alone, and two of them the same one.
 */
class NewLeaderTest {
    private var pod = readyGatedPod()
    private var run = readyGatedPodRun(WarmupRun.PHASE_RUNNING)
    private val caches =
        mockk<Caches> {
            every { pods.get("shop", "web-1") } answers { pod }
            every { runsOf("shop", "web-1") } answers { listOf(run) }
            every { namespaceLabels(any()) } returns emptyMap()
        }

    /** A new leader's reconciler and the writes it asks for: fresh memory, the same caches. */
    private class Leader(
        caches: Caches,
    ) {
        val recorder =
            mockk<RunRecorder>(relaxed = true) {
                every { finalStatus(any()) } returns null
                every { syncRecord(any(), any(), any()) } returns false
            }
        val actions = mockk<RunActions>(relaxed = true)
        val reconciler =
            PodReconciler(
                OperatorConfig(),
                caches,
                PlanParser(FailurePolicy.OPEN),
                recorder,
                mockk<WarmupPools>(relaxed = true),
                actions,
                WarmupCompletions(),
            ) { _, _ -> null }
        private val context = mockk<Context<Pod>> { every { isPrimaryResourceDeleted } returns false }

        fun reconcile(pod: Pod) {
            reconciler.reconcile(pod, context)
        }
    }

    private fun twoNewLeaders() = listOf(Leader(caches), Leader(caches)).onEach { it.reconcile(pod) }

    @Test
    fun `a result recorded in the run but not on the gate is published onto the gate`() {
        run = readyGatedPodRun(WarmupRun.PHASE_SUCCEEDED)
        for (leader in twoNewLeaders()) {
            verify(exactly = 1) { leader.recorder.publish(pod, "web-1", run) }
            verify(exactly = 0) { leader.actions.start(any(), any()) }
        }
    }

    @Test
    fun `a warm-up left running by the old leader is started again, not waited for`() {
        for (leader in twoNewLeaders()) {
            verify(exactly = 1) { leader.actions.start(any(), any()) }
            verify(exactly = 0) { leader.recorder.publish(any(), any(), any()) }
        }
    }

    @Test
    fun `a gate written but a run left open is closed from the gate, and nothing is warmed again`() {
        pod = readyGatedPod(gate = Keys.GateReasons.WARMED_UP)
        for (leader in twoNewLeaders()) {
            verify(exactly = 1) { leader.actions.closeFromGate(pod, run, any()) }
            verify(exactly = 0) { leader.actions.start(any(), any()) }
        }
    }
}
