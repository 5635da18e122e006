package dev.danki.operator.controller

import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanResult
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.api.model.Pod
import java.time.Instant

/** Everything the pod reconciler gathered about one pod and the run for its current restart count. */
data class RunContext(
    val pod: Pod,
    val runName: String,
    val deployment: String,
    val plan: PlanResult,
    val deadline: Instant,
    val restarts: Int,
    val cachedRun: WarmupRun?,
    val retry: Retry = Retry(),
) {
    /** Whether a failed run is tried again ([check]), and what a new status carries for the next such check. */
    data class Retry(
        val check: RunRetry = RunRetry(),
        /** Digest of the Deployment's warm-up annotations now. */
        val digest: String = "",
        /** The pod's `danki.dev/rewarm` value now, as a run keeps it. */
        val rewarmToken: String? = null,
        /** The run's latest status (this process's final result, else the cache's). */
        val latest: WarmupRunStatus? = null,
    ) {
        val asked: Boolean get() = check.cause != null
    }

    val podKey: String get() = ObjectKeys.of(pod)
    val runKey: String get() = ObjectKeys.of(pod.metadata.namespace, runName)

    val spec: WarmupRunSpec
        get() =
            WarmupRunSpec().apply {
                podName = pod.metadata.name
                podUid = pod.metadata.uid
                deployment = this@RunContext.deployment.ifEmpty { null }
                restartCount = restarts
                failurePolicy = plan.failurePolicy.value
                timeoutSeconds = (plan.plan?.timeout ?: WarmupPlan.DEFAULT_TIMEOUT).seconds
            }

    val ref: RunRef get() = RunRef(pod, runName, spec)
}

/** Which run of which pod, and the spec it was created with (Deployment, failure policy, timeout). */
data class RunRef(
    val pod: Pod,
    val runName: String,
    val spec: WarmupRunSpec,
) {
    val namespace: String get() = pod.metadata.namespace
    val deployment: String get() = spec.deployment ?: ""
    val policy: FailurePolicy get() = FailurePolicy.recorded(spec.failurePolicy)
}
