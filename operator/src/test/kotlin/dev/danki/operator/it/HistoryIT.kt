package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.warmup.FailurePolicy
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.doubles.shouldBeGreaterThan
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * Each Deployment's WarmupHistory on a real kube-apiserver: results of real k6 warm-ups go in newest
 * first, bounded by the retention, owned by the Deployment (not the pod), and writers that race each
 * other (a leader hand-over) lose nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HistoryIT {
    private val space = ItNamespace("danki-it-history")
    private val target = TestTarget(200)
    private val failing = TestTarget(500)
    private lateinit var operator: Operator

    private val fast = Fixtures.FAST_PLAN

    @BeforeAll
    fun start() {
        operator = space.operator { copy(historyRetention = RETENTION) }
    }

    @AfterAll
    fun stop() {
        operator.stop()
        target.close()
        failing.close()
    }

    private fun history(name: String): WarmupHistory? =
        space.client
            .resources(WarmupHistory::class.java)
            .inNamespace(space.ns)
            .withName(name)
            .get()

    @Test
    fun `three warm-ups leave the last two in the Deployment's history, newest first, owned by the Deployment`() {
        val annotations = fast + (Annotations.PORT to target.port.toString())
        val deployment = space.create(Fixtures.deployment(space.ns, "exam", annotations))
        val pods = listOf("exam-abc123-x1", "exam-abc123-x2", "exam-abc123-x3")
        for (pod in pods) {
            space.createReadyPod("exam", pod, target.port)
            // one at a time, so the order of the results is known
            eventually(Duration.ofSeconds(60)) { space.run(pod)?.status?.phase shouldBe WarmupRun.PHASE_SUCCEEDED }
        }
        val history =
            eventually(Duration.ofSeconds(20)) {
                val h = history("exam").shouldNotBeNull()
                h.status?.recorded shouldBe 3L
                h
            }
        history.spec.deployment shouldBe "exam"
        history.status.retention shouldBe RETENTION
        history.status.entries
            .orEmpty()
            .map { it.pod } shouldBe listOf("exam-abc123-x3", "exam-abc123-x2")
        val owner = history.metadata.ownerReferences.single()
        listOf(owner.kind, owner.name, owner.uid) shouldBe listOf("Deployment", "exam", deployment.metadata.uid)
        for (entry in history.status.entries.orEmpty()) {
            val run = space.run(entry.run!!).shouldNotBeNull()
            listOf(entry.phase, entry.stopReason, entry.duration, entry.completionTime) shouldBe
                listOf(run.status.phase, run.status.stopReason, run.status.duration, run.status.completionTime)
            entry.cold!!.p95!! shouldBeGreaterThan 0.0
            entry.warm!!.p95 shouldBe run.status.warm?.p95
            entry.requests shouldBe run.status.requests?.total
        }
        // the pods and their runs go (scale-down); the history stays, it is the Deployment's
        for (pod in pods) {
            space.client
                .pods()
                .inNamespace(space.ns)
                .withName(pod)
                .delete()
            space.client
                .resources(WarmupRun::class.java)
                .inNamespace(space.ns)
                .withName(pod)
                .delete()
        }
        history("exam")
            .shouldNotBeNull()
            .status.entries
            .orEmpty()
            .size shouldBe RETENTION
    }

    @Test
    fun `a failed warm-up is kept with its reason`() {
        val annotations =
            fast + (Annotations.PORT to failing.port.toString()) +
                (Annotations.FAILURE_POLICY to FailurePolicy.OPEN.value) + (Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "broken", annotations))
        space.createReadyPod("broken", "broken-abc123-x1", failing.port)
        val entry =
            eventually(Duration.ofSeconds(40)) {
                history("broken")
                    .shouldNotBeNull()
                    .status.entries
                    .orEmpty()
                    .single()
            }
        listOf(entry.pod, entry.phase, entry.reason) shouldBe
            listOf("broken-abc123-x1", WarmupRun.PHASE_FAILED, Keys.RunConditions.REASON_TOO_MANY_ERRORS)
    }

    @Test
    fun `two writers racing for one history lose nothing`() {
        space.create(Fixtures.deployment(space.ns, "raced", fast))
        val writers =
            List(2) {
                RunHistory(space.client, 50, ::deployment)
            }
        val threads = Executors.newFixedThreadPool(2)
        val results =
            writers.mapIndexed { w, writer ->
                threads.submit<List<Boolean>> {
                    (1..8).map { i -> writer.write(space.ns, "raced", entry("w$w-run$i")) }
                }
            }
        results.flatMap { it.get(60, TimeUnit.SECONDS) }.all { it } shouldBe true
        threads.shutdown()
        val history = history("raced").shouldNotBeNull()
        history.status.recorded shouldBe 16L
        history.status.entries
            .orEmpty()
            .map { it.run } shouldContainExactlyInAnyOrder
            (0..1).flatMap { w -> (1..8).map { i -> "w$w-run$i" } }
        writers.forEach { it.close() }
    }

    @Test
    fun `no history is made for a Deployment that is gone`() {
        val writer =
            RunHistory(space.client, 5, ::deployment)
        writer.write(space.ns, "never-there", entry("x")) shouldBe false
        history("never-there").shouldBeNull()
        writer.close()
    }

    private fun deployment(namespace: String, name: String) =
        space.client
            .apps()
            .deployments()
            .inNamespace(namespace)
            .withName(name)
            .get()

    private fun entry(run: String) =
        WarmupHistoryEntry().apply {
            this.run = run
            phase = WarmupRun.PHASE_SUCCEEDED
            completionTime = "2026-11-24T08:00:00Z"
        }

    companion object {
        private const val RETENTION = 2
    }
}
