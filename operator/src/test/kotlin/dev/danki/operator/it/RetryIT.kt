package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.Keys.RunConditions
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.leader.Leadership
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration

/**
 * No pod stays gated for good on danki's account, and no record stays open for good: a failed pod
 * is warmed again on the user's word (`danki.dev/rewarm`) or when its warm-up annotations change,
 * a pod that waited through an operator outage is warmed rather than timed out, and runs whose
 * warm-up was cancelled (containers restarted, warm-up disabled) say Cancelled.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RetryIT {
    private val space = ItNamespace("danki-it-retry")
    private val failing = TestTarget(500)
    private val healthy = TestTarget(200)
    private val hanging = TestTarget(hang = true)
    private lateinit var operator: Operator

    /** Small passes so a warm-up takes seconds; held closed, so a failure keeps the pod out. */
    private fun settings(port: Int) =
        Fixtures.FAST_PLAN +
            mapOf(
                Annotations.PORT to "$port",
                Annotations.PATHS to "GET /",
                Annotations.TIMEOUT to "12s",
                Annotations.FAILURE_POLICY to "closed",
            )

    @BeforeAll
    fun start() {
        operator = space.operator()
    }

    @AfterAll
    fun stop() {
        operator.stop()
        listOf(failing, healthy, hanging).forEach { it.close() }
    }

    private fun failedFor(pod: String) =
        eventually(Duration.ofSeconds(40)) {
            val status = space.run(pod)!!.status
            status.phase shouldBe WarmupRun.PHASE_FAILED
            status.reason shouldBe RunConditions.REASON_TOO_MANY_ERRORS
            space.gate(pod)!!.status shouldBe "False"
        }

    private fun warmedAgain(pod: String, cause: String) =
        eventually(Duration.ofSeconds(40)) {
            val status = space.run(pod)!!.status
            status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
            status.retries shouldBe 1
            status.retryCause!! shouldContain cause
            space.gate(pod)!!.reason shouldBe Keys.GateReasons.WARMED_UP
            space.events(pod).map { it.reason } shouldContain Keys.EventReasons.WARMUP_RETRIED
        }

    @Test
    fun `a closed failure is warmed again once the user annotates the pod with a new rewarm value`() {
        val target = TestTarget(500)
        try {
            space.create(Fixtures.deployment(space.ns, "rewarm", settings(target.port)))
            space.createReadyPod("rewarm", "rewarm-abc123-x1", target.port)
            failedFor("rewarm-abc123-x1")
            // the cause is fixed; without a word from the user the failure stays final
            target.status = 200
            continually(Duration.ofSeconds(2)) { space.run("rewarm-abc123-x1")!!.status.phase shouldBe "Failed" }
            space.client
                .pods()
                .inNamespace(space.ns)
                .withName("rewarm-abc123-x1")
                .edit { p -> p.apply { metadata.annotations = mapOf(Annotations.REWARM to "1") } }
            warmedAgain("rewarm-abc123-x1", "rewarm requested (danki.dev/rewarm=1)")
        } finally {
            target.close()
        }
    }

    @Test
    fun `a closed failure is warmed again when the Deployment's warm-up annotations change`() {
        space.create(Fixtures.deployment(space.ns, "fixed", settings(failing.port)))
        space.createReadyPod("fixed", "fixed-abc123-x1", failing.port)
        failedFor("fixed-abc123-x1")
        space.editDeployment("fixed") { d -> d.metadata.annotations[Annotations.PORT] = "${healthy.port}" }
        warmedAgain("fixed-abc123-x1", "annotations changed")
    }

    @Test
    fun `a pod that waited through an operator outage longer than its timeout is warmed, not timed out`() {
        val late = ItNamespace("danki-it-outage")
        late.create(Fixtures.deployment(late.ns, "outage", settings(healthy.port)))
        late.createReadyPod("outage", "outage-abc123-x1", healthy.port)
        // no operator for longer than the pod's timeout
        Thread.sleep(Duration.ofSeconds(OUTAGE_SECONDS).toMillis())
        val back = late.operator()
        try {
            eventually(Duration.ofSeconds(30)) {
                late.run("outage-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
                late.gate("outage-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMED_UP
            }
        } finally {
            back.stop()
        }
    }

    private companion object {
        /** Longer than the 12 s timeout of [settings]. */
        const val OUTAGE_SECONDS = 14L
    }

    @Test
    fun `a record left Running by a leader that decided the gate and stopped is closed from the gate`() {
        val late = ItNamespace("danki-it-orphan")
        late.create(Fixtures.deployment(late.ns, "orphan", settings(healthy.port)))
        val pod = late.createReadyPod("orphan", "orphan-abc123-x1", healthy.port)
        // what the stopped leader left: the gate decided, the record still Running
        val spec =
            WarmupRunSpec().apply {
                podName = pod.metadata.name
                podUid = pod.metadata.uid
                deployment = "orphan"
                failurePolicy = "closed"
            }
        RunStore(late.client, Leadership.always()).create(
            pod,
            pod.metadata.name,
            spec,
            WarmupRunStatus().apply {
                phase =
                    "Running"
            },
        )
        val decided = GateCondition(true, Keys.GateReasons.WARMED_UP, "cold p95 90 ms -> warm p95 9 ms")
        PodGate(late.client, Leadership.always()) { }.write(pod, decided)
        val back = late.operator()
        try {
            eventually(Duration.ofSeconds(30)) {
                val status = late.run("orphan-abc123-x1")!!.status
                status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
                status.message!! shouldContain "recorded from the pod's gate"
                status.message!! shouldContain "cold p95 90 ms -> warm p95 9 ms"
            }
            // the pod was not warmed again: its gate is the one the earlier leader wrote
            late.gate("orphan-abc123-x1")!!.message shouldBe "cold p95 90 ms -> warm p95 9 ms"
        } finally {
            back.stop()
        }
    }

    @Test
    fun `the run of an earlier restart count says Cancelled instead of staying Running`() {
        val long = settings(hanging.port) + (Annotations.TIMEOUT to "2m")
        space.create(Fixtures.deployment(space.ns, "restart", long))
        val pod = space.createReadyPod("restart", "restart-abc123-x1", hanging.port)
        eventually(Duration.ofSeconds(30)) {
            space.run("restart-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_RUNNING
        }
        Fixtures.markReady(space.client, pod, "127.0.0.1", restarts = 1)
        eventually(Duration.ofSeconds(20)) {
            val old = space.run("restart-abc123-x1")!!.status
            old.phase shouldBe WarmupRun.PHASE_CANCELLED
            old.reason shouldBe RunConditions.REASON_CONTAINER_RESTARTED
            old.message!! shouldContain "run restart-abc123-x1-r1 took over"
            space.run("restart-abc123-x1-r1")!!.status.phase shouldBe WarmupRun.PHASE_RUNNING
        }
    }

    @Test
    fun `a warm-up disabled while it runs leaves a Cancelled record and a released pod`() {
        val long = settings(hanging.port) + (Annotations.TIMEOUT to "2m")
        space.create(Fixtures.deployment(space.ns, "optout", long))
        space.createReadyPod("optout", "optout-abc123-x1", hanging.port)
        eventually(Duration.ofSeconds(30)) {
            space.run("optout-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_RUNNING
        }
        space.editDeployment("optout") { d -> d.metadata.annotations[Annotations.WARMUP] = "disabled" }
        eventually(Duration.ofSeconds(20)) {
            space.gate("optout-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMUP_DISABLED
            val status = space.run("optout-abc123-x1")!!.status
            status.phase shouldBe WarmupRun.PHASE_CANCELLED
            status.reason shouldBe RunConditions.REASON_WARMUP_DISABLED
        }
    }
}
