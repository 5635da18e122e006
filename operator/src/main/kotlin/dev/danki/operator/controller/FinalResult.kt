package dev.danki.operator.controller

import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.GateRule
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.FailurePolicy

/** A run's final status and the spec whose failure policy turns it into a gate decision. */
data class FinalResult(
    val status: WarmupRunStatus,
    val spec: WarmupRunSpec,
) {
    val policy: FailurePolicy get() = FailurePolicy.parse(spec.failurePolicy ?: "") ?: FailurePolicy.OPEN

    /** The pod's gate condition this result stands for. */
    fun gate(): GateCondition = GateRule.finished(status, policy)
}
