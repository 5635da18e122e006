package dev.danki.operator.gate

import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource

/** The gate decision table, one row per case; every gated pod ends in an explicit decision. */
class GateDecisionTest {
    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    fun `gate decision table`(case: String, facts: PodFacts, expected: GateDecision) {
        withClue(case) { GateDecision.decide(facts) shouldBe expected }
    }

    @Test
    fun `each row states facts no other row states`() {
        val byFacts = table().groupBy({ it.get()[1] }, { it.get()[0] })
        byFacts.values.filter { it.size > 1 } shouldBe emptyList()
    }

    companion object {
        /** A gated, ready pod of an opted-in Deployment, with no run yet: the START row. */
        private val ready =
            PodFacts(
                hasGate = true,
                deleting = false,
                wanted = true,
                containersReady = true,
                hasPodIP = true,
                gateTrue = null,
                runPhase = null,
                olderRunExists = false,
                runningHere = false,
                queuedHere = false,
                invalidConfig = false,
                deadlinePassed = false,
            )

        private fun row(case: String, facts: PodFacts, expected: GateDecision) = Arguments.of(case, facts, expected)

        @JvmStatic
        fun table() = gateAndOptOutRows() + runRows() + invalidRows() + retryRows()

        private fun invalidRows() =
            listOf(
                row("invalid config fails", ready.copy(invalidConfig = true), GateDecision.FAIL_INVALID_CONFIG),
                row(
                    "invalid config fails before the containers are ready: nothing to wait for",
                    ready.copy(invalidConfig = true, containersReady = false, hasPodIP = false),
                    GateDecision.FAIL_INVALID_CONFIG,
                ),
            )

        private fun gateAndOptOutRows() =
            listOf(
                row(
                    "a pod on the node's network is refused, once ready",
                    ready.copy(targetRefused = true),
                    GateDecision.FAIL_TARGET_REFUSED,
                ),
                row(
                    "a refused pod still waits for its containers",
                    ready.copy(targetRefused = true, containersReady = false),
                    GateDecision.WAIT,
                ),
                row("pod without gate is ignored", ready.copy(hasGate = false), GateDecision.IGNORE),
                row("deleting pod is ignored", ready.copy(deleting = true), GateDecision.IGNORE),
                row("opted-out gated pod is released", ready.copy(wanted = false), GateDecision.RELEASE),
                row(
                    "opted-out pod already True is done",
                    ready.copy(wanted = false, gateTrue = true),
                    GateDecision.DONE,
                ),
                row(
                    "opted-out pod with gate False is released",
                    ready.copy(wanted = false, gateTrue = false),
                    GateDecision.RELEASE,
                ),
                row("warmed pod is done", ready.copy(gateTrue = true, runPhase = "Succeeded"), GateDecision.DONE),
                row("released pod without runs is done", ready.copy(gateTrue = true), GateDecision.DONE),
                row(
                    "warmed pod whose containers restarted is reset",
                    ready.copy(gateTrue = true, olderRunExists = true),
                    GateDecision.RESET_AFTER_RESTART,
                ),
                row(
                    "reset pod starts a new run",
                    ready.copy(gateTrue = false, olderRunExists = true),
                    GateDecision.START,
                ),
            )

        private fun retryRows() =
            listOf(
                row(
                    "a failed run asked to retry starts again",
                    ready.copy(runPhase = "Failed", gateTrue = false, retryAsked = true),
                    GateDecision.START,
                ),
                row(
                    "a released (open) failed run asked to retry starts again despite its True gate",
                    ready.copy(runPhase = "Failed", gateTrue = true, retryAsked = true),
                    GateDecision.START,
                ),
                row(
                    "a retry already queued here is in progress (the cache may still show Failed)",
                    ready.copy(runPhase = "Failed", gateTrue = false, retryAsked = true, queuedHere = true),
                    GateDecision.IN_PROGRESS,
                ),
                row(
                    "a retry of a config that is still invalid fails again, with the new problems",
                    ready.copy(runPhase = "Failed", gateTrue = false, retryAsked = true, invalidConfig = true),
                    GateDecision.FAIL_INVALID_CONFIG,
                ),
                row(
                    "a retry waits for the containers like a first run",
                    ready.copy(runPhase = "Failed", retryAsked = true, containersReady = false),
                    GateDecision.WAIT,
                ),
                row(
                    "an opted-out pod is released, not retried",
                    ready.copy(runPhase = "Failed", retryAsked = true, wanted = false),
                    GateDecision.RELEASE,
                ),
                row(
                    "a cancelled run of a pod whose gate is not True starts again",
                    ready.copy(runPhase = "Cancelled", gateTrue = false),
                    GateDecision.START,
                ),
            )

        private fun runRows() =
            listOf(
                row("succeeded run is published", ready.copy(runPhase = "Succeeded"), GateDecision.PUBLISH_RESULT),
                row(
                    "failed run is published",
                    ready.copy(runPhase = "Failed", gateTrue = false),
                    GateDecision.PUBLISH_RESULT,
                ),
                row(
                    "failed run publishes even when containers are not ready",
                    ready.copy(runPhase = "Failed", containersReady = false),
                    GateDecision.PUBLISH_RESULT,
                ),
                row(
                    "running here is in progress",
                    ready.copy(runPhase = "Running", runningHere = true),
                    GateDecision.IN_PROGRESS,
                ),
                row(
                    "running here past the deadline waits for k6, which stops itself at the deadline",
                    ready.copy(runPhase = "Running", runningHere = true, deadlinePassed = true),
                    GateDecision.IN_PROGRESS,
                ),
                row(
                    "queued here is in progress",
                    ready.copy(runPhase = "Pending", queuedHere = true),
                    GateDecision.IN_PROGRESS,
                ),
                row(
                    "queued here past the deadline is withdrawn and fails",
                    ready.copy(runPhase = "Pending", queuedHere = true, deadlinePassed = true),
                    GateDecision.FAIL_TIMEOUT,
                ),
                row(
                    "queued here past the deadline fails even if its containers are no longer ready",
                    ready.copy(runPhase = "Pending", queuedHere = true, deadlinePassed = true, containersReady = false),
                    GateDecision.FAIL_TIMEOUT,
                ),
                row("containers not ready waits", ready.copy(containersReady = false), GateDecision.WAIT),
                row("no pod IP waits", ready.copy(hasPodIP = false), GateDecision.WAIT),
                row(
                    "deadline passed while waiting (queued, or turned away by a full queue) fails",
                    ready.copy(runPhase = "Pending", deadlinePassed = true),
                    GateDecision.FAIL_TIMEOUT,
                ),
                row("ready pod starts", ready, GateDecision.START),
                row(
                    "a run left Running by a dead leader starts again",
                    ready.copy(runPhase = "Running"),
                    GateDecision.START,
                ),
                row("a user-gated pod with gate False starts", ready.copy(gateTrue = false), GateDecision.START),
            )
    }
}
