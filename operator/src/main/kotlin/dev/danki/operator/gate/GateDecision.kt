package dev.danki.operator.gate

import dev.danki.operator.kube.WarmupRun

/** The one thing to do for a pod; every path for a gated pod ends in one of these. */
enum class GateDecision {
    /** Not danki's pod (no gate) or on its way out: stop any warm-up, write nothing. */
    IGNORE,

    /** Opt-out while gated: set the gate True with reason `WarmupDisabled`. */
    RELEASE,

    /** Containers not ready or no IP yet: the next pod event brings us back. */
    WAIT,

    /** Nothing left to do (gate True, or a run ended and its result is on the pod). */
    DONE,

    /** The gate is True but the containers restarted: set it False and warm again. */
    RESET_AFTER_RESTART,

    /** A run ended: copy its result onto the gate (idempotent). */
    PUBLISH_RESULT,

    /** The warm-up is queued or running in this process: wait for it. */
    IN_PROGRESS,

    /**
     * The annotations are invalid: fail the run and apply the failure policy at once, before the
     * containers are ready and without a warm-up slot, so the pod is Ready as soon as they are (open).
     */
    FAIL_INVALID_CONFIG,

    /** The pod's address is not its own (hostNetwork): fail the run and apply the failure policy. */
    FAIL_TARGET_REFUSED,

    /** The pod's timeout passed with no result (e.g. queued too long): withdraw it, apply the failure policy. */
    FAIL_TIMEOUT,

    /** Create or restart the WarmupRun and queue the warm-up. */
    START,
    ;

    companion object {
        private val TERMINAL = setOf(WarmupRun.PHASE_SUCCEEDED, WarmupRun.PHASE_FAILED)

        /** The gate decision table; see GateDecisionTest for every row. */
        fun decide(facts: PodFacts): GateDecision =
            with(facts) {
                when {
                    !hasGate || deleting -> IGNORE
                    !wanted -> if (gateTrue == true) DONE else RELEASE
                    retryAsked -> decideOpen(facts)
                    gateTrue == true -> if (runPhase == null && olderRunExists) RESET_AFTER_RESTART else DONE
                    runPhase in TERMINAL -> PUBLISH_RESULT
                    else -> decideOpen(facts)
                }
            }

        /** A wanted pod, gate not True, no final result yet. */
        private fun decideOpen(facts: PodFacts): GateDecision =
            with(facts) {
                when {
                    // a queued warm-up has no deadline of its own: the reconciler must end it
                    queuedHere && deadlinePassed -> FAIL_TIMEOUT

                    // a running one stops itself at the deadline, and its result is published
                    runningHere || queuedHere -> IN_PROGRESS

                    // known from the annotations alone: no reason to wait for the containers or a slot
                    invalidConfig -> FAIL_INVALID_CONFIG

                    !containersReady || !hasPodIP -> WAIT

                    targetRefused -> FAIL_TARGET_REFUSED

                    deadlinePassed -> FAIL_TIMEOUT

                    else -> START
                }
            }
    }
}
