package dev.danki.operator.controller

import dev.danki.operator.boost.BoostAmount
import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.boost.PodResize
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.testkit.SettableClock
import dev.danki.operator.testkit.readyGatedPod
import dev.danki.operator.warmup.AttemptStarter
import dev.danki.operator.warmup.ColdPass
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.K6Summary
import dev.danki.operator.warmup.Percentiles
import dev.danki.operator.warmup.PhaseResult
import dev.danki.operator.warmup.PhaseRuns
import dev.danki.operator.warmup.RunningAttempt
import dev.danki.operator.warmup.StopReason
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupEvidence
import dev.danki.operator.warmup.WarmupPhase
import dev.danki.operator.warmup.WarmupPlan
import dev.danki.operator.warmup.WarmupTask
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import io.mockk.slot
import io.mockk.verify
import org.junit.jupiter.api.Test
import java.time.Instant

/**
 * A CPU boost is for the warm-up phase only: the cold and warm passes measure the pod at its own CPU,
 * as its users meet it. So a boosted warm-up is three k6 runs, with the resizes between them, and one
 * result: its cold pass from the first run, its warm-up from the second, its warm pass from the third.
 */
class BoostedWarmupTest {
    /** What happened, in order: k6 runs by their phases, and resizes by the limit asked for. */
    private val steps = mutableListOf<String>()

    /** The cold-pass setting each k6 run was given, in order: it decides how the cold and warm passes are sent. */
    private val coldPasses = mutableListOf<ColdPass>()
    private val outcomes = ArrayDeque<(Set<WarmupPhase>) -> K6Outcome>()

    private val starter =
        object : AttemptStarter {
            override fun start(request: K6Request): RunningAttempt {
                steps += "k6 ${WarmupPhase.listOf(request.phases)}"
                coldPasses += request.plan.coldPass
                val outcome = (outcomes.removeFirstOrNull() ?: ::completed)(request.phases)
                return object : RunningAttempt {
                    override fun await() = outcome

                    override fun cancel() = Unit

                    override fun cleanUp() = Unit
                }
            }
        }
    private val resize =
        mockk<PodResize> {
            every { request(any(), any(), any(), any()) } answers { steps += "resize ${thirdArg<Long>()}m" }
            every { await(any(), any(), any(), any()) } returns PodResize.Outcome.Applied
        }
    private val recorder = mockk<RunRecorder>(relaxed = true)
    private val boostEvents = mockk<EventRecorder>(relaxed = true)
    private val job =
        WarmupJob(
            OperatorConfig(),
            WarmupAttempts(starter),
            null,
            recorder,
            mockk(relaxed = true),
            CpuBoost(resize, boostEvents, enabled = true),
        )
    private val pod =
        readyGatedPod().apply {
            spec.containers[0] =
                ContainerBuilder(spec.containers[0])
                    .withNewResources()
                    .addToLimits("cpu", Quantity("200m"))
                    .endResources()
                    .build()
        }

    private fun warmUp(plan: WarmupPlan, earlier: CpuBoostStatus? = null): WarmupRunStatus {
        val status = WarmupRunStatus().apply { cpuBoost = earlier }
        val ctxSpec = RunContext(pod, "web-1", "web", mockk(relaxed = true), Instant.now(), 0, null).spec
        val input =
            WarmupJob.Input(
                RunRef(pod, "web-1", ctxSpec),
                plan,
                Instant.now().plusSeconds(300),
                Instant.now(),
                status,
            )
        job.run(WarmupTask("shop/web-1", "shop/web-1"), input)
        return status
    }

    @Test
    fun `the cold pass runs at the pod's own CPU, the warm-up boosted, the warm pass at its own CPU again`() {
        val status = warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)))
        steps shouldBe listOf("k6 cold", "resize 1000m", "k6 warmup", "resize 200m", "k6 warm")
        // the cold pass sent alone is an open one, whatever the plan says: so the warm pass is open as well
        coldPasses shouldBe List(3) { ColdPass.OPEN }
        status.cpuBoost!!.state shouldBe CpuBoostStatus.RESTORED
        val summary = slot<K6Summary>()
        verify { recorder.succeeded(any(), status, capture(summary), any()) }
        summary.captured.cold.latency!!
            .p95 shouldBe COLD_P95
        summary.captured.warmup.requests shouldBe WARMUP_REQUESTS
        summary.captured.warm.latency!!
            .p95 shouldBe WARM_P95
        summary.captured.stopReason shouldBe StopReason.Converged
        summary.captured.firstRequestAtMillis shouldBe FIRST_REQUEST
        status.attempts shouldBe 3
    }

    /** [pod] as the webhook admits it with a boost to 1: its spec at the boost, its declared 200m on it. */
    private fun boostedAtAdmission(declared: String = """{"container":"app","limit":"200m"}""") {
        pod.spec.containers[0]
            .resources.limits["cpu"] = Quantity("1")
        pod.metadata.annotations = mapOf(Keys.DECLARED_CPU_ANNOTATION to declared)
    }

    @Test
    fun `a pod boosted at admission runs its cold pass and warm-up at the boost, its warm pass at its own CPU`() {
        boostedAtAdmission()
        val status = warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)))
        // no resize up: the JVM started at the boost; the one resize puts the declared CPU back. No CPU
        // changes between the cold pass and the warm-up, so they are one run, as without a boost
        steps shouldBe listOf("k6 cold,warmup", "resize 200m", "k6 warm")
        // the plan's cold pass (the warm-up's first answers), and a warm pass taken alike
        coldPasses shouldBe List(2) { ColdPass.WARMUP }
        status.cpuBoost!!.state shouldBe CpuBoostStatus.RESTORED
        status.cpuBoost!!.summary shouldBe "200m->1"
        verify { recorder.succeeded(any(), status, any(), any()) }
    }

    @Test
    fun `a pod boosted at admission is restored even when its Deployment no longer asks for a boost`() {
        boostedAtAdmission()
        warmUp(WarmupPlan(port = 8080))
        steps shouldBe listOf("k6 cold,warmup", "resize 200m", "k6 warm")
    }

    @Test
    fun `a declared CPU edited above what the pod has is not restored to, and the pod is not boosted further`() {
        // a tenant's edit of the annotation: danki never resizes a container up from it
        boostedAtAdmission("""{"container":"app","limit":"4"}""")
        warmUp(WarmupPlan(port = 8080))
        steps shouldBe listOf("k6 cold,warmup,warm")
        CpuBoost.fromAdmission(pod) shouldBe null
    }

    @Test
    fun `a restore the kubelet does not apply fails the run with its reason, so the gate follows the failure policy`() {
        boostedAtAdmission()
        every { resize.await(any(), any(), 200L, any()) } returns PodResize.Outcome.NotApplied("Infeasible", "no")
        val status = warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)))
        status.cpuBoost!!.state shouldBe CpuBoostStatus.NOT_RESTORED
        verify { recorder.failed(any(), status, Keys.RunConditions.REASON_CPU_BOOST_NOT_RESTORED, any()) }
        verify { boostEvents.warning(any(), Keys.EventReasons.CPU_BOOST_NOT_RESTORED, any()) }
    }

    @Test
    fun `without a boost asked for, the warm-up is one k6 run of all three phases`() {
        warmUp(WarmupPlan(port = 8080))
        steps shouldBe listOf("k6 cold,warmup,warm")
    }

    @Test
    fun `a boost that is skipped leaves the warm-up and warm pass in one run`() {
        warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(100)))
        steps shouldBe listOf("k6 cold", "k6 warmup,warm")
    }

    @Test
    fun `a warm-up that fails while boosted is restored, and no warm pass follows`() {
        outcomes += ::completed
        // out of its time budget: a failure that is not retried
        outcomes += { K6Outcome.Failed(Keys.RunConditions.REASON_TIMEOUT, "k6 ran out of its time budget") }
        val status = warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)))
        steps shouldBe listOf("k6 cold", "resize 1000m", "k6 warmup", "resize 200m")
        status.cpuBoost!!.state shouldBe CpuBoostStatus.RESTORED
        verify { recorder.failed(any(), status, Keys.RunConditions.REASON_TIMEOUT, any()) }
    }

    @Test
    fun `a boost whose record the API server does not take is refused before any resize`() {
        // a leader that took over would find no record of the pod's own limit, and leave it boosted
        every { recorder.progress(any(), any(), any()) } throws KubernetesClientException("apiserver down")
        val status = warmUp(WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)))
        withClue("what ran, with a boost record that could not be written") {
            steps shouldBe listOf("k6 cold", "k6 warmup,warm")
        }
        status.cpuBoost!!.state shouldBe CpuBoostStatus.REFUSED
        verify { boostEvents.warning(any(), Keys.EventReasons.CPU_BOOST_REFUSED, any()) }
    }

    @Test
    fun `a cold pass that fails raises no boost`() {
        repeat(3) { outcomes += { K6Outcome.Failed(Keys.RunConditions.REASON_K6_FAILED, "connection refused") } }
        val task = WarmupTask("shop/web-1", "shop/web-1")
        val status = WarmupRunStatus()
        val input =
            WarmupJob.Input(
                RunRef(
                    pod,
                    "web-1",
                    RunContext(pod, "web-1", "web", mockk(relaxed = true), Instant.now(), 0, null).spec,
                ),
                WarmupPlan(port = 8080, warmupCpu = BoostAmount.Fixed(1_000)),
                // room for one attempt only: the retries do not fit
                Instant.now().plusSeconds(6),
                Instant.now(),
                status,
            )
        job.run(task, input)
        steps shouldBe listOf("k6 cold")
        status.cpuBoost shouldBe null
        verify { recorder.failed(any(), status, Keys.RunConditions.REASON_K6_FAILED, any()) }
    }

    @Test
    fun `a warm pass with no time left fails the warm-up on its timeout, numbered after the runs before it`() {
        val clock = SettableClock(Instant.now())
        val deadline = clock.now.plusSeconds(60)
        val started = mutableListOf<Int>()
        val listener =
            object : dev.danki.operator.warmup.AttemptListener {
                override fun attemptStarted(attempt: Int) {
                    started += attempt
                }

                override fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: java.time.Duration) = Unit
            }
        val request = K6Request("shop.web-1", "http://10.0.0.7:8080", WarmupPlan(port = 8080), deadline, 0.05)
        val runs =
            PhaseRuns(WarmupAttempts(starter, clock = clock), request, WarmupTask("shop/web-1", "shop/web-1"), listener)
        runs.send(setOf(WarmupPhase.COLD)) shouldBe true
        runs.send(setOf(WarmupPhase.WARMUP)) shouldBe true
        clock.now = deadline.minusSeconds(2)
        runs.send(setOf(WarmupPhase.WARM)) shouldBe false
        started shouldBe listOf(1, 2)
        val failed = runs.result().outcome as K6Outcome.Failed
        failed.reason shouldBe Keys.RunConditions.REASON_TIMEOUT
        failed.message shouldBe "too little time was left before the deadline for the warm phase; k6 not started"
        runs.result().attempts shouldBe 2
    }

    private companion object {
        const val COLD_P95 = 900.0
        const val WARM_P95 = 12.0
        const val WARMUP_REQUESTS = 2_003L
        const val FIRST_REQUEST = 1_795_427_173_871L

        fun completed(phases: Set<WarmupPhase>): K6Outcome = K6Outcome.Completed(completedSummary(phases))

        /** What warmup.js reports for a run of [phases]: the phases it did not send are empty. */
        fun completedSummary(phases: Set<WarmupPhase>): K6Summary {
            /** A phase of the run with [requests] answers at [p95] ms each percentile; one it did not send is empty. */
            fun sent(phase: WarmupPhase, requests: Long, p95: Double) =
                if (phase !in
                    phases
                ) {
                    PhaseResult(0, 0, null)
                } else {
                    PhaseResult(requests, 0, Percentiles(p95, p95, p95, p95, p95))
                }
            val warmedUp = WarmupPhase.WARMUP in phases
            return K6Summary(
                stopReason = if (warmedUp) StopReason.Converged else StopReason.Measured,
                abortMessage = null,
                cold = sent(WarmupPhase.COLD, 100, COLD_P95),
                warmup = sent(WarmupPhase.WARMUP, WARMUP_REQUESTS, 20.0),
                warm = sent(WarmupPhase.WARM, 100, WARM_P95),
                firstRequestAtMillis = if (WarmupPhase.COLD in phases) FIRST_REQUEST else 0,
                durationSeconds = 5.0,
                evidence =
                    if (warmedUp) {
                        WarmupEvidence(
                            rule = "throughput",
                            concurrency = 4,
                            requests = WARMUP_REQUESTS,
                            blocks = 10,
                            blockSize = 200,
                            lastBlockP95 = 20.0,
                            seconds = 20.0,
                            achievedRate = 100.0,
                            jit = null,
                        )
                    } else {
                        null
                    },
            )
        }
    }
}
