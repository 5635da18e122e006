package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import io.kotest.assertions.withClue
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.time.Instant
import java.time.ZonedDateTime
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * A replica that lost its Lease writes nothing of the leader's while it has not stopped yet (issue 48,
 * hole 3), on a real kube-apiserver. The Lease is handed to another identity mid-warm-up; the old
 * leader is told (its election's callback) and, as here, not stopped at all: the longest the window
 * before a real replica's exit can be. Its warm-up against a target that never answers reaches the pod's
 * deadline after that, and its result (failure policy open: release the pod) must not reach the pod.
 * The replica the Lease was handed to then starts, leads, and decides the pod.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaderLossIT {
    private val space = ItNamespace("danki-it-leader-loss")
    private val silent = TestTarget(hang = true)
    private val lease = "leader-loss"

    private fun replica(identity: String, onLost: () -> Unit = {}): Operator {
        val config =
            space.config().copy(
                leaderElection = true,
                leaseName = lease,
                leaseNamespace = space.ns,
                identity = identity,
            )
        return Operator(config, space.client, onLost = onLost).apply { start() }
    }

    @Test
    fun `an old leader writes no result after the hand-off, and the new one decides the pod`() {
        val lost = CountDownLatch(1)
        val old = replica("replica-a") { lost.countDown() }
        var next: Operator? = null
        try {
            eventually(Duration.ofSeconds(30)) {
                space.client
                    .leases()
                    .inNamespace(space.ns)
                    .withName(lease)
                    .get()
                    ?.spec
                    ?.holderIdentity shouldBe
                    "replica-a"
            }
            val settings =
                mapOf(
                    Annotations.WARMUP to "enabled",
                    Annotations.PORT to "${silent.port}",
                    Annotations.TIMEOUT to "${TIMEOUT_SECONDS}s",
                    Annotations.FAILURE_POLICY to "open",
                )
            space.create(Fixtures.deployment(space.ns, "loss", settings))
            val pod = space.createReadyPod("loss", "loss-abc123-x1", silent.port)
            val settled = Instant.now().plusSeconds(TIMEOUT_SECONDS + SETTLE_SECONDS)
            val name = pod.metadata.name
            eventually(Duration.ofSeconds(15)) { space.run(name)!!.status.phase shouldBe WarmupRun.PHASE_RUNNING }

            handTo("replica-b")
            withClue("the old leader's election says the Lease is lost (renew deadline 10 s)") {
                lost.await(LOSS_SECONDS, TimeUnit.SECONDS) shouldBe true
            }
            // past the pod's deadline, when the old leader's k6 has ended and its result is in
            Thread.sleep(Duration.between(Instant.now(), settled).toMillis().coerceAtLeast(0))
            withClue("the gate of $name after the old leader's warm-up reached its deadline") {
                space.gate(name) shouldBe null
            }
            space.run(name)!!.status.phase shouldBe WarmupRun.PHASE_RUNNING

            next = replica("replica-b")
            val decided =
                eventually(Duration.ofSeconds(TIMEOUT_SECONDS + DECIDE_SECONDS)) { space.gate(name).shouldNotBeNull() }
            "${decided.status}/${decided.reason}" shouldBe "True/${Keys.GateReasons.WARMUP_FAILED_OPEN}"
        } finally {
            next?.stop()
            old.stop()
        }
    }

    /** What another replica's election does once it wins: the Lease names it, renewed just now. */
    private fun handTo(identity: String) {
        val now = ZonedDateTime.now()
        space.client
            .leases()
            .inNamespace(space.ns)
            .withName(lease)
            .edit { held ->
                held.apply {
                    spec.holderIdentity = identity
                    spec.acquireTime = now
                    spec.renewTime = now
                    spec.leaseTransitions = (spec.leaseTransitions ?: 0) + 1
                }
            }
    }

    private companion object {
        const val TIMEOUT_SECONDS = 20L
        const val LOSS_SECONDS = 20L
        const val SETTLE_SECONDS = 6L
        const val DECIDE_SECONDS = 30L
    }
}
