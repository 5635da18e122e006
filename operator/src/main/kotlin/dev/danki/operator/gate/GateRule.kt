package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.FailurePolicy

/**
 * Every `danki.dev/warmed` condition danki writes, and why: the one place that decides whether a pod
 * may join its Service. [PodGate] only writes what this picks.
 */
object GateRule {
    /** Warm-up switched off for the pod's Deployment (or namespace): let it in, there is nothing to wait for. */
    const val DISABLED_MESSAGE = "warm-up disabled on the Deployment (or its namespace)"

    /**
     * A finished run: warmed joins; a failure joins cold under failure policy `open` (a cold pod beats
     * no pod) and stays out under `closed`.
     */
    fun finished(status: WarmupRunStatus, policy: FailurePolicy): GateCondition =
        when {
            status.phase == WarmupRun.PHASE_SUCCEEDED -> {
                GateCondition(true, Keys.GateReasons.WARMED_UP, status.message ?: "warmed up")
            }

            policy == FailurePolicy.OPEN -> {
                GateCondition(true, Keys.GateReasons.WARMUP_FAILED_OPEN, "${status.reason}: ${status.message}")
            }

            else -> {
                GateCondition(false, Keys.GateReasons.WARMUP_FAILED, "${status.reason}: ${status.message}")
            }
        }

    fun disabled() = GateCondition(true, Keys.GateReasons.WARMUP_DISABLED, DISABLED_MESSAGE)

    /** A container restart left the JVM cold again: out of the Service until it is warmed again. */
    fun containerRestarted(restarts: Int) =
        GateCondition(false, Keys.GateReasons.CONTAINER_RESTARTED, "restart count $restarts: warming again")

    /** A pod released after an open failure leaves its Service again while it is warmed again. */
    fun rewarming(cause: String) = GateCondition(false, Keys.GateReasons.REWARMING, Messages.cut(cause))
}
