package dev.danki.operator.runner

import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.K6Outcome
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test

/** A runner pod's status, as a kubelet writes it, read into an outcome. */
class RunnerResultTest {
    private fun fixture(name: String) = javaClass.getResource("/k6/$name")!!.readText()

    private fun pod(
        phase: String,
        message: String? = null,
        exitCode: Int = 0,
        reason: String? = null,
        waiting: String? = null,
    ): Pod {
        val builder = PodBuilder().withNewStatus().withPhase(phase).withReason(reason)
        val status =
            builder
                .addNewContainerStatus()
                .withName(RunnerPodSpec.CONTAINER)
                .withNewState()
                .apply {
                    if (waiting != null) {
                        withNewWaiting().withReason(waiting).withMessage("configmap \"x\" not found").endWaiting()
                    } else if (phase == "Succeeded" || phase == "Failed") {
                        withNewTerminated()
                            .withExitCode(exitCode)
                            .withMessage(message)
                            .withReason("Completed")
                            .endTerminated()
                    }
                }.endState()
                .endContainerStatus()
        return status.endStatus().build()
    }

    @Test
    fun `a running pod has no result yet`() {
        RunnerResult.of(pod("Running"), 0.05) shouldBe null
        RunnerResult.of(pod("Pending"), 0.05) shouldBe null
    }

    @Test
    fun `the termination message is the runner's summary`() {
        val ended = pod("Succeeded", fixture("summary-converged.json"))
        RunnerResult.of(ended, 0.05).shouldBeInstanceOf<K6Outcome.Completed>()
    }

    @Test
    fun `a pod that cannot start fails the attempt at once, naming why`() {
        val failed = RunnerResult.of(pod("Pending", waiting = "CreateContainerConfigError"), 0.05)
        val message = failed.shouldBeInstanceOf<K6Outcome.Failed>().message
        message shouldContain "CreateContainerConfigError: configmap \"x\" not found"
    }

    @Test
    fun `a pod past its deadline is a timeout`() {
        RunnerResult
            .of(pod("Failed", reason = "DeadlineExceeded"), 0.05)
            .shouldBeInstanceOf<K6Outcome.Failed>()
            .reason shouldBe Keys.RunConditions.REASON_TIMEOUT
    }

    @Test
    fun `a pod that ended without a summary says so, with what it did leave`() {
        val failed =
            RunnerResult.of(pod("Failed", "panic: boom", exitCode = 2), 0.05).shouldBeInstanceOf<K6Outcome.Failed>()
        failed.reason shouldBe Keys.RunConditions.REASON_K6_FAILED
        failed.message shouldContain "exit code 2"
        failed.message shouldContain "panic: boom"
    }
}
