package dev.danki.operator.e2e

import dev.danki.operator.e2e.badinput.BadInputCase
import dev.danki.operator.e2e.badinput.BadInputCases
import dev.danki.operator.e2e.badinput.BadInputReport
import dev.danki.operator.e2e.badinput.Observation
import dev.danki.operator.e2e.badinput.PodTimes
import dev.danki.operator.it.eventually
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Pod
import io.kotest.assertions.withClue
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldHaveAtLeastSize
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.time.Duration

/**
 * The bad-input suite: every case of [BadInputCases] as its own Deployment of one http-status pod,
 * created all at once against one operator, then each pod's Events, WarmupRun, gate and Ready state
 * compared with what the case expects. It writes docs/bad-input.md (or DANKI_BAD_INPUT_DOC) from what
 * it saw, whether or not every case matched, and then fails on any row that differs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputE2E {
    private val repo = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    private val cluster = E2eCluster(repo)
    private val client = cluster.client
    private val logDir = File(repo, "operator/target/e2e-logs").apply { mkdirs() }
    private lateinit var operator: OperatorProcess
    private val doc = File(System.getenv("DANKI_BAD_INPUT_DOC") ?: File(repo, "docs/bad-input.md").path)

    @BeforeAll
    fun start() {
        cluster.setUp()
        operator = OperatorProcess("bad-input-${cluster.suffix}", listOf(cluster.ns), cluster.ns, logDir)
        // pods created before the operator leads would count its start-up as their gated time
        eventually(Duration.ofMinutes(2)) { operator.ready() shouldBe true }
        eventually(Duration.ofMinutes(1)) { cluster.leaseHolder() shouldBe operator.identity }
    }

    @AfterAll
    fun stop() {
        operator.stop()
        cluster.tearDown()
    }

    @Test
    fun `every malformed configuration is named, decided and leaves no pod wedged`() {
        val cases = BadInputCases.ALL
        cases shouldHaveAtLeastSize MIN_CASES
        val rows =
            PodTimes(client, cluster.ns).use { times ->
                cases.forEach { client.resource(deploymentOf(it)).create() }
                eventually(SETTLE) {
                    // one read of the namespace per poll, not two per case: the polls share the API server
                    // with the operator whose decision times they measure
                    val now = Snapshot(cluster)
                    val unsettled = cases.filterNot { settled(it, now) }.map { it.name }
                    withClue("cases not settled yet: $unsettled") { unsettled.shouldBeEmpty() }
                }
                // a held pod must stay held: give Ready a moment to turn where it should not
                Thread.sleep(HOLD.toMillis())
                val end = Snapshot(cluster)
                cases.map { case ->
                    val seen = observe(case, end, times)
                    Triple(case, seen, seen.mismatches(case.expect))
                }
            }
        BadInputReport.write(doc, rows, header())
        rows.forEach { (case, seen, misses) ->
            println(
                "BAD-INPUT ${case.name}: run ${seen.runReason}, gate ${seen.gateReason}, ready ${seen.ready}, " +
                    "gated ${seen.gatedSeconds} s, decided ${seen.decidedSeconds} s after ContainersReady; $misses",
            )
        }
        val differing = rows.filter { it.third.isNotEmpty() }.map { "${it.first.name}: ${it.third}" }
        withClue("cases that differ from their expectation (see ${doc.path})") { differing.shouldBeEmpty() }
        operator.isAlive() shouldBe true
    }

    private fun deploymentOf(case: BadInputCase) =
        cluster
            .deployment(case.name, 1, case.annotations, HTTP_STATUS, case.target, gated = case.gated)
            .apply {
                if (case.templateAnnotations.isNotEmpty()) spec.template.metadata.annotations = case.templateAnnotations
            }

    /** The test namespace's pods (by app), WarmupRuns (by pod) and Events (by object), read once. */
    private class Snapshot(
        cluster: E2eCluster,
    ) {
        private val pods =
            cluster.client
                .pods()
                .inNamespace(cluster.ns)
                .list()
                .items
                .filter { it.metadata.deletionTimestamp == null }
                .groupBy { it.metadata.labels?.get("app") }
        private val runs = cluster.runs().associateBy { it.spec.podName }
        val events by lazy { cluster.allEvents().groupBy { it.involvedObject.name } }

        fun podOf(case: BadInputCase): Pod? = pods[case.name]?.singleOrNull()

        fun runOf(pod: Pod): WarmupRun? = runs[pod.metadata.name]
    }

    /** Decided: a gated pod has its gate condition and a finished run; an ungated one is Ready. */
    private fun settled(case: BadInputCase, now: Snapshot): Boolean {
        val pod = now.podOf(case) ?: return false
        if (case.expect.gateReason == null) return ready(pod)
        val gate = cluster.gateOf(pod) ?: return false
        val finished = now.runOf(pod)?.status?.phase in setOf(WarmupRun.PHASE_SUCCEEDED, WarmupRun.PHASE_FAILED)
        return finished && (gate.status == "True" || !case.expect.ready)
    }

    private fun ready(pod: Pod) =
        pod.status
            ?.conditions
            .orEmpty()
            .any { it.type == "Ready" && it.status == "True" }

    private fun observe(case: BadInputCase, end: Snapshot, times: PodTimes): Observation {
        val pod = end.podOf(case)!!
        val name = pod.metadata.name
        val run = end.runOf(pod)
        val events = (end.events[case.name].orEmpty() + end.events[name].orEmpty()).map { it.reason to it.message }
        val gate = cluster.gateOf(pod)
        return Observation(
            events = events,
            runReason = run?.status?.reason,
            runMessage = run?.status?.message,
            gateReason = gate?.reason,
            gateStatus = gate?.status,
            ready = ready(pod),
            gatedSeconds = times.gatedSeconds(name),
            decidedSeconds = times.decidedSeconds(name),
            tookSlot = run?.status?.let { it.queueWait != null || (it.attempts ?: 0) > 0 } ?: false,
        )
    }

    private fun header() =
        "${BadInputCases.ALL.size} malformed or failing warm-up configurations, each a Deployment of one " +
            "`danki/http-status:dev` pod, all created at once on the local cluster against one operator " +
            "process (default settings, failure policy `open` unless the row says `closed`). The control row is " +
            "a good plan. Valid plans use `${BadInputCases.GOOD}`."

    private companion object {
        const val MIN_CASES = 40
        const val HTTP_STATUS = "danki/http-status:dev"
        val SETTLE: Duration = Duration.ofMinutes(6)
        val HOLD: Duration = Duration.ofSeconds(3)
    }
}
