package dev.danki.operator.it

import dev.danki.operator.kube.Keys
import dev.danki.operator.runner.RunnerPod
import dev.danki.operator.runner.RunnerPodSpec
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

/**
 * A runner pod's attempt on a real API server: it ends when the pod's status says so, told by a watch
 * (no kubelet runs here, so the test writes the status a kubelet would), and not before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunnerPodIT {
    private val space = ItNamespace("danki-it-runner")
    private val client = space.client

    private fun runnerPod(name: String): RunnerPod {
        client
            .resource(
                PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(space.ns)
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName(RunnerPodSpec.CONTAINER)
                    .withImage("runner")
                    .endContainer()
                    .endSpec()
                    .build(),
            ).create()
        val deadline = Instant.now().plus(Duration.ofSeconds(DEADLINE_SECONDS))
        val request = K6Request("${space.ns}.$name", "http://127.0.0.1:1", WarmupPlan(port = 1), deadline, 0.05)
        return RunnerPod(client, request, space.ns, name)
    }

    private fun awaitInBackground(attempt: RunnerPod) = CompletableFuture.supplyAsync { attempt.await() }

    /** What a kubelet writes when the runner's k6 exits with [message] as its termination message. */
    private fun end(name: String, message: String) {
        client.pods().inNamespace(space.ns).withName(name).editStatus { pod ->
            PodBuilder(pod)
                .editOrNewStatus()
                .withPhase("Succeeded")
                .withContainerStatuses(
                    ContainerStatusBuilder()
                        .withName(RunnerPodSpec.CONTAINER)
                        .withImage("runner")
                        .withImageID("")
                        .withReady(false)
                        .withRestartCount(0)
                        .withNewState()
                        .withNewTerminated()
                        .withExitCode(0)
                        .withReason("Completed")
                        .withMessage(message)
                        .endTerminated()
                        .endState()
                        .build(),
                ).endStatus()
                .build()
        }
    }

    @Test
    fun `the attempt ends with the summary the pod's status carries, once it carries one`() {
        val attempt = runnerPod("runner-ends")
        val outcome = awaitInBackground(attempt)
        Thread.sleep(QUIET_MILLIS)
        // a pod that has not ended keeps the attempt waiting
        outcome.isDone shouldBe false
        end("runner-ends", javaClass.getResource("/k6/summary-converged.json")!!.readText())
        outcome.get(WAIT_SECONDS, TimeUnit.SECONDS).shouldBeInstanceOf<K6Outcome.Completed>()
        attempt.cleanUp()
    }

    @Test
    fun `a runner pod deleted before it ended fails the attempt`() {
        val attempt = runnerPod("runner-deleted")
        val outcome = awaitInBackground(attempt)
        client
            .pods()
            .inNamespace(space.ns)
            .withName("runner-deleted")
            .withGracePeriod(0)
            .delete()
        val failed = outcome.get(WAIT_SECONDS, TimeUnit.SECONDS).shouldBeInstanceOf<K6Outcome.Failed>()
        failed.reason shouldBe Keys.RunConditions.REASON_K6_FAILED
        failed.message shouldContain "deleted before it ended"
    }

    @Test
    fun `a cancelled attempt answers Cancelled and removes its pod`() {
        val attempt = runnerPod("runner-cancelled")
        val outcome = awaitInBackground(attempt)
        attempt.cancel()
        outcome.get(WAIT_SECONDS, TimeUnit.SECONDS) shouldBe K6Outcome.Cancelled
        eventually(Duration.ofSeconds(WAIT_SECONDS)) { space.pod("runner-cancelled") shouldBe null }
    }

    private companion object {
        const val DEADLINE_SECONDS = 60L
        const val WAIT_SECONDS = 10L

        /** Long enough for the watch to have listed the pod and judged it. */
        const val QUIET_MILLIS = 1_000L
    }
}
