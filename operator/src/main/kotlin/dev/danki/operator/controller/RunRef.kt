package dev.danki.operator.controller

import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.warmup.FailurePolicy
import io.fabric8.kubernetes.api.model.Pod

/** Which run of which pod, and the spec it was created with (Deployment, failure policy, timeout). */
data class RunRef(
    val pod: Pod,
    val runName: String,
    val spec: WarmupRunSpec,
) {
    val namespace: String get() = pod.metadata.namespace
    val deployment: String get() = spec.deployment ?: ""
    val policy: FailurePolicy get() = FailurePolicy.parse(spec.failurePolicy ?: "") ?: FailurePolicy.OPEN
}
