package dev.danki.operator.controller

import dev.danki.operator.aot.AotFixtures
import dev.danki.operator.aot.AotProbe
import dev.danki.operator.aot.AotReport
import dev.danki.operator.aot.AotStore
import dev.danki.operator.aot.AotTrainer
import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.testkit.readyGatedPod
import dev.danki.operator.warmup.AttemptStarter
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.RunningAttempt
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPlan
import dev.danki.operator.warmup.WarmupPool
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.assertions.withClue
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import org.junit.jupiter.api.Test
import java.time.Instant
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * Every failure of a warm-up before its result backs its pod off (issue 48, hole 4): the job throws,
 * the pool reports a crash, and [WarmupCompletions] holds the pod's next start back. A job that ended
 * without a result and without a crash would be started again by the very next reconcile, and again,
 * until the pod's deadline.
 */
class FailureBackoffTest {
    private val completions = WarmupCompletions()
    private val ended = CountDownLatch(1)
    private val pool =
        WarmupPool(1, 10, { _, _ -> }) { task, crash ->
            completions.finished(task.podKey, crash)
            ended.countDown()
        }

    /** k6 attempts started, each failing at once with too many errors. */
    private var k6Started = 0
    private val starter =
        object : AttemptStarter {
            override fun start(request: K6Request): RunningAttempt {
                k6Started++
                return object : RunningAttempt {
                    override fun await() = K6Outcome.Failed(Keys.RunConditions.REASON_TOO_MANY_ERRORS, "500s")

                    override fun cancel() = Unit

                    override fun cleanUp() = Unit
                }
            }
        }

    /** The pod's JVM refused its AOT cache, so the report records the refusal on the Deployment's AotCache. */
    private val pod: Pod =
        PodBuilder(readyGatedPod(owner = "web-5bf4d59dc"))
            .editMetadata()
            .addToAnnotations(Keys.Aot.CACHE_ANNOTATION, AotFixtures.SHA)
            .endMetadata()
            .editStatus()
            .addNewInitContainerStatus()
            .withName(Keys.Aot.VERIFY_CONTAINER)
            .withNewState()
            .withNewTerminated()
            .withExitCode(0)
            .withMessage("${Keys.Aot.VERIFIED} ${AotFixtures.SHA}")
            .endTerminated()
            .endState()
            .endInitContainerStatus()
            .endStatus()
            .build()

    private fun job(recorder: RunRecorder, aot: AotReport? = null) =
        WarmupJob(
            OperatorConfig(),
            WarmupAttempts(starter),
            null,
            recorder,
            mockk(relaxed = true),
            CpuBoost(mockk(), mockk(relaxed = true), enabled = false),
            aot,
        )

    /** Runs [job] on the pool, deadline in 6 s (room for one attempt, no retry), and waits for its end. */
    private fun runOnPool(job: WarmupJob) {
        val spec = RunContext(pod, "web-1", "web", mockk(relaxed = true), Instant.now(), 0, null).spec
        val input =
            WarmupJob.Input(
                RunRef(pod, "web-1", spec),
                WarmupPlan(port = 8080),
                Instant.now().plusSeconds(6),
                Instant.now(),
                WarmupRunStatus(),
            )
        pool.submit("shop/web-1", "shop/web-1") { task -> job.run(task, input) }
        ended.await(WAIT_SECONDS, TimeUnit.SECONDS) shouldBe true
    }

    @Test
    fun `an AOT cache status the API server refuses before the result backs the pod off`() {
        val store =
            mockk<AotStore> {
                every { read("shop", "web") } returns AotFixtures.cache()
                every { writeStatus(any(), any()) } throws KubernetesClientException("request timed out", 504, null)
            }
        val trainer = AotTrainer(store, mockk(), PlanParser(FailurePolicy.OPEN), mockk(relaxed = true)) { _, _ -> null }
        val refused = AotProbe { _, _, _, _ -> "[0.012s][warning][aot] Unable to use AOT cache.\n" }
        runOnPool(job(mockk(relaxed = true), AotReport(refused, mockk(relaxed = true), trainer)))
        withClue("the pod's back-off after a job that threw before its result") {
            completions.backoff("shop/web-1").shouldNotBeNull()
        }
        k6Started shouldBe 0
    }

    @Test
    fun `a result the API server refuses is kept and published again, not backed off`() {
        val recorder =
            mockk<RunRecorder>(relaxed = true) {
                every { failed(any(), any(), any(), any()) } throws KubernetesClientException("apiserver down")
            }
        runOnPool(job(recorder))
        k6Started shouldBe 1
        completions.backoff("shop/web-1").shouldBeNull()
    }

    private companion object {
        const val WAIT_SECONDS = 10L
    }
}
