package dev.danki.operator.runner

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Process
import dev.danki.operator.warmup.K6SummaryException
import dev.danki.operator.warmup.K6SummaryParser
import dev.danki.operator.warmup.WarmupPhase
import io.fabric8.kubernetes.api.model.ContainerStateTerminated
import io.fabric8.kubernetes.api.model.Pod

/**
 * How a runner pod's attempt ended, read from its status alone: the summary its k6 wrote as the
 * container's termination message, or why there is none. Null while the pod is still on its way.
 */
object RunnerResult {
    /** Waiting reasons that will not clear up by themselves within an attempt. */
    private val STUCK =
        setOf(
            "ErrImagePull",
            "ImagePullBackOff",
            "InvalidImageName",
            "CreateContainerConfigError",
            "CreateContainerError",
            "RunContainerError",
        )

    fun of(pod: Pod, maxErrorRatio: Double, phases: Set<WarmupPhase> = WarmupPhase.ALL): K6Outcome? {
        val status = pod.status ?: return null
        val container = status.containerStatuses.orEmpty().firstOrNull { it.name == RunnerPodSpec.CONTAINER }
        val waiting = container?.state?.waiting
        return when {
            waiting != null && waiting.reason in STUCK -> {
                failed("runner pod cannot start: ${waiting.reason}: ${waiting.message ?: ""}".trimEnd(' ', ':'))
            }

            status.phase != "Succeeded" && status.phase != "Failed" -> {
                null
            }

            status.reason == "DeadlineExceeded" -> {
                K6Outcome.Failed(Keys.RunConditions.REASON_TIMEOUT, DEADLINE_EXCEEDED)
            }

            else -> {
                val terminated = container?.state?.terminated ?: container?.lastState?.terminated
                ended(terminated, status.reason ?: status.phase, maxErrorRatio, phases)
            }
        }
    }

    /** The summary in the termination message, or why there is none. */
    private fun ended(
        terminated: ContainerStateTerminated?,
        podReason: String,
        maxErrorRatio: Double,
        phases: Set<WarmupPhase>,
    ): K6Outcome {
        val message = terminated?.message.orEmpty()
        return try {
            K6Process.classify(K6SummaryParser.parse(message), maxErrorRatio, phases)
        } catch (e: K6SummaryException) {
            val exit = terminated?.exitCode?.let { "exit code $it" } ?: "no exit code"
            val why = "${terminated?.reason ?: podReason}) without a summary (${e.message})"
            failed("runner pod ended ($exit, $why: ${Messages.quote(message)}")
        }
    }

    private const val DEADLINE_EXCEEDED = "runner pod reached its deadline (activeDeadlineSeconds)"

    private fun failed(message: String) = K6Outcome.Failed(Keys.RunConditions.REASON_K6_FAILED, message)
}
