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
import java.time.Duration

/**
 * A pool of one slot, held by a warm-up whose target never answers: the next pod waits in the queue
 * (WarmupRun Pending, counted as queued) and, when its timeout passes, leaves the queue and fails with
 * reason Timeout without k6 ever being started for it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueueIT {
    private val space = ItNamespace("danki-it-queue")
    private val silent = TestTarget(hang = true)
    private val late = TestTarget(200)
    private lateinit var operator: Operator

    @BeforeAll
    fun start() {
        operator = space.operator { copy(concurrency = 1) }
    }

    @AfterAll
    fun stop() {
        operator.stop()
        silent.close()
        late.close()
    }

    private fun queuedGauge(): String =
        operator
            .metricsPage()
            .lines()
            .single { it.startsWith("danki_warmups_queued ") }

    private fun settings(timeout: String, port: Int) =
        mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to timeout, Annotations.PORT to "$port")

    @Test
    fun `a pod queued past its timeout fails with Timeout and k6 never starts for it`() {
        val hold = settings(timeout = "2m", port = silent.port)
        space.create(Fixtures.deployment(space.ns, "hold", hold))
        space.createReadyPod("hold", "hold-abc123-x1", silent.port)
        eventually(Duration.ofSeconds(30)) {
            space.run("hold-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_RUNNING
        }

        val wait = settings(timeout = "10s", port = late.port)
        space.create(Fixtures.deployment(space.ns, "late", wait))
        space.createReadyPod("late", "late-abc123-x1", late.port)
        eventually(Duration.ofSeconds(8)) {
            space.run("late-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_PENDING
            queuedGauge() shouldBe "danki_warmups_queued 1.0"
        }
        eventually(Duration.ofSeconds(20)) {
            val status = space.run("late-abc123-x1")!!.status
            status.phase shouldBe WarmupRun.PHASE_FAILED
            status.reason shouldBe Keys.RunConditions.REASON_QUEUE_TIMEOUT
            status.message shouldContain "k6 never started"
            status.attempts shouldBe 0
        }
        eventually(Duration.ofSeconds(10)) {
            space.gate("late-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
            queuedGauge() shouldBe "danki_warmups_queued 0.0"
        }
        late.requests.get() shouldBe 0
        // the slot is still held: the queued pod really was waiting behind it
        space.run("hold-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_RUNNING
        space.client
            .pods()
            .inNamespace(space.ns)
            .withName("hold-abc123-x1")
            .delete()
    }
}
