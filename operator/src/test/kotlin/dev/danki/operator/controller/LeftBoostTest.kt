package dev.danki.operator.controller

import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.boost.PodResize
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.testkit.readyGatedPod
import dev.danki.operator.testkit.readyGatedPodRun
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupPools
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import io.mockk.slot
import io.mockk.verify
import io.mockk.verifyOrder
import org.junit.jupiter.api.Test
import java.time.Instant

/**
 * A leader that stops mid-warm-up leaves its pod boosted, with the pod's own CPU only in the run's record.
 * When the next leader ends that run without a warm-up of its own (a deadline, an opt-out, a restart, a
 * gate already written), it puts the pod's own CPU back first: no pod serves at the boost.
 */
class LeftBoostTest {
    private val pod = readyGatedPod()
    private val run = readyGatedPodRun(WarmupRun.PHASE_RUNNING, boosted())
    private val resize =
        mockk<PodResize>(relaxed = true) {
            every { await(any(), any(), any(), any()) } returns PodResize.Outcome.Applied
        }
    private val ended = mutableListOf<String>()
    private val boosts = CpuBoost(resize, mockk(relaxed = true), enabled = true, onEnded = { ended += it })
    private val recorder = mockk<RunRecorder>(relaxed = true)
    private val gate = mockk<PodGate>(relaxed = true)
    private val pool = mockk<WarmupPools>(relaxed = true) { every { cancelPod(any(), any()) } returns emptySet() }
    private val actions =
        RunActions(mockk<RunStore>(relaxed = true), gate, recorder, pool, mockk(relaxed = true), mockk(), boosts)

    /** A pod the webhook boosted at admission: its spec at 1 CPU, its declared 200m on the pod itself. */
    private val admitted =
        readyGatedPod().apply {
            spec.containers[0].resources = ResourceRequirementsBuilder().addToLimits("cpu", Quantity("1")).build()
            metadata.annotations = mapOf(Keys.DECLARED_CPU_ANNOTATION to """{"container":"app","limit":"200m"}""")
        }

    private fun context(run: WarmupRun? = this.run, restarts: Int = 0, pod: Pod = this.pod) =
        RunContext(
            pod,
            "web-1",
            "web",
            PlanParser(FailurePolicy.OPEN).parse(emptyMap(), pod.spec),
            Instant.now(),
            restarts,
            run,
            RunContext.Retry(latest = run?.status),
        )

    @Test
    fun `a run failed on its deadline restores the pod's own CPU before the failure policy`() {
        val failed = slot<WarmupRunStatus>()
        actions.fail(context(), Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        verifyOrder {
            resize.request(pod, "app", 200, null)
            recorder.failed(any(), capture(failed), Keys.RunConditions.REASON_TIMEOUT, any())
        }
        failed.captured.cpuBoost!!.state shouldBe CpuBoostStatus.RESTORED
        ended shouldBe listOf("restored")
        // the informer's object is not the one restored
        run.status!!.cpuBoost!!.state shouldBe CpuBoostStatus.BOOSTED
    }

    @Test
    fun `a pod boosted at admission and opted out before any run is released at its declared CPU`() {
        actions.release(context(run = null, pod = admitted))
        verifyOrder {
            resize.request(admitted, "app", 200, null)
            gate.write(admitted, any())
        }
        ended shouldBe listOf("restored")
    }

    @Test
    fun `a new leader restores a boost from admission from the pod alone, the run having no record of it`() {
        val failed = slot<WarmupRunStatus>()
        val plain = readyGatedPodRun(WarmupRun.PHASE_RUNNING)
        actions.fail(context(run = plain, pod = admitted), Keys.RunConditions.REASON_TIMEOUT, "no result")
        verifyOrder {
            resize.request(admitted, "app", 200, null)
            recorder.failed(any(), capture(failed), Keys.RunConditions.REASON_TIMEOUT, any())
        }
        failed.captured.cpuBoost!!.summary shouldBe "200m->1"
        failed.captured.cpuBoost!!.state shouldBe CpuBoostStatus.RESTORED
    }

    @Test
    fun `an opt-out restores the pod's own CPU before the gate lets it serve`() {
        val closed = slot<CpuBoostStatus>()
        actions.release(context())
        verifyOrder {
            resize.request(pod, "app", 200, null)
            gate.write(pod, any())
            recorder.close(pod, run, WarmupRun.PHASE_CANCELLED, any(), any(), capture(closed))
        }
        closed.captured.state shouldBe CpuBoostStatus.RESTORED
    }

    @Test
    fun `a warm-up this process started and cancelled restores its own boost, so it is not restored twice`() {
        every { pool.cancelPod(any(), any()) } returns setOf("shop/web-1")
        actions.release(context())
        verify(exactly = 0) { resize.request(any(), any(), any(), any()) }
        verify { recorder.close(pod, run, WarmupRun.PHASE_CANCELLED, any(), any(), null) }
        ended shouldBe emptyList()
    }

    @Test
    fun `a run superseded after a restart restores the boost its stopped leader left`() {
        actions.supersede(context(run = null, restarts = 1), listOf(run), startedHere = emptySet())
        verifyOrder {
            resize.request(pod, "app", 200, null)
            recorder.close(
                pod,
                run,
                WarmupRun.PHASE_CANCELLED,
                Keys.RunConditions.REASON_CONTAINER_RESTARTED,
                any(),
                any(),
            )
        }
    }

    @Test
    fun `a run closed from a gate already written restores the pod it left boosted`() {
        val condition =
            PodConditionBuilder()
                .withType(
                    Keys.GATE_CONDITION,
                ).withStatus("True")
                .withReason(Keys.GateReasons.WARMED_UP)
                .build()
        actions.closeFromGate(pod, run, condition)
        verify { resize.request(pod, "app", 200, null) }
        verify {
            recorder.close(
                pod,
                run,
                WarmupRun.PHASE_SUCCEEDED,
                any(),
                any(),
                match {
                    it.state ==
                        CpuBoostStatus.RESTORED
                },
            )
        }
    }

    @Test
    fun `a run without a boost left is closed as it was, with no resize`() {
        val plain = readyGatedPodRun(WarmupRun.PHASE_RUNNING)
        actions.fail(context(run = plain), Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        actions.release(context(run = plain))
        verify(exactly = 0) { resize.request(any(), any(), any(), any()) }
        ended shouldBe emptyList()
    }

    private fun boosted() =
        CpuBoostStatus().apply {
            state = CpuBoostStatus.BOOSTED
            container = "app"
            cpu = "1"
            fromLimit = "200m"
            summary = "200m->1"
        }
}
