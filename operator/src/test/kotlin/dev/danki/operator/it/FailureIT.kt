package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.time.Duration

/**
 * An operator whose k6 cannot start (the binary is gone after start-up), started after its objects
 * exist: the failure is recorded with its cause through the retry path, and pods are decided only
 * once every cache has synced.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailureIT {
    private val space = ItNamespace("danki-it-failure")
    private lateinit var operator: Operator

    @BeforeAll
    fun start() {
        // before the operator starts: a Deployment with an invalid annotation and its ready pod
        val invalid = mapOf(Annotations.WARMUP to "enabled", Annotations.RATE to "fast", Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "early", invalid))
        space.createReadyPod("early", "early-abc123-x1", 8080)
        operator = space.operator { copy(k6Binary = File(TestApiServer.repo, "bin/no-such-k6").path) }
    }

    @AfterAll
    fun stop() = operator.stop()

    @Test
    fun `a pod that existed before the operator started is decided with its Deployment's settings`() {
        eventually(Duration.ofSeconds(20)) {
            val status = space.run("early-abc123-x1")!!.status
            status.phase shouldBe WarmupRun.PHASE_FAILED
            // with the Deployment not yet cached, the pod would have got the default plan and a k6 attempt
            status.reason shouldBe Keys.RunConditions.REASON_INVALID_CONFIG
        }
    }

    @Test
    fun `a k6 that cannot start fails each attempt with its cause, then the failure policy applies`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "nok6", annotations))
        space.createReadyPod("nok6", "nok6-abc123-x1", 8080)
        eventually(Duration.ofSeconds(30)) {
            val status = space.run("nok6-abc123-x1")!!.status
            status.phase shouldBe WarmupRun.PHASE_FAILED
            status.reason shouldBe Keys.RunConditions.REASON_K6_NOT_STARTED
            status.message shouldContain "k6 could not start"
            status.message shouldContain "no-such-k6"
            (status.attempts!! > 1) shouldBe true
        }
        eventually(Duration.ofSeconds(10)) {
            space.gate("nok6-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
        }
    }
}
