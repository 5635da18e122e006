package dev.danki.operator.e2e

import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.gate.PodGate
import dev.danki.operator.it.eventually
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import io.fabric8.kubernetes.api.model.ConfigMapBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.kotest.assertions.withClue
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.collections.shouldNotBeEmpty
import io.kotest.matchers.comparables.shouldBeGreaterThanOrEqualTo
import io.kotest.matchers.comparables.shouldBeLessThan
import io.kotest.matchers.doubles.shouldBeLessThan
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import java.io.File
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit

/**
 * The five end-to-end scenarios on the local cluster (KUBECONFIG), with real JVM pods of the
 * sample service, real k6, and operator processes electing a leader on a Lease; then a clean
 * shutdown of the leader.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class OperatorE2E {
    private val repo = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    private val cluster = E2eCluster(repo)
    private val client = cluster.client
    private val ns = cluster.ns
    private val logDir = File(repo, "operator/target/e2e-logs").apply { mkdirs() }
    private val operators = mutableListOf<OperatorProcess>()
    private val orphans = mutableListOf<ProcessHandle>()

    private val warmup =
        mapOf(
            Annotations.WARMUP to "enabled",
            Annotations.PORT to "http",
            Annotations.PATHS to "GET /exams/1; GET /exams/2",
            Annotations.TIMEOUT to "4m",
        )

    @BeforeAll
    fun start() {
        cluster.setUp()
        repeat(2) { operators += operator(it) }
    }

    @AfterAll
    fun stop() {
        operators.forEach { it.stop() }
        // a killed leader's k6 stops itself within its time budget; none may outlive the test
        orphans.forEach { it.destroyForcibly() }
        cluster.tearDown()
    }

    // cpuBoost as the chart's cpuBoost.enabled sets it, for scenario 8
    private fun operator(index: Int) =
        OperatorProcess("e2e-${cluster.suffix}-$index", listOf(ns), ns, logDir, mapOf("DANKI_CPU_BOOST" to "true"))

    private fun leader(): OperatorProcess {
        val holder = cluster.leaseHolder()
        return operators.single { it.identity == holder }
    }

    /** Every gated pod of [app] is warmed and there are [count] pods in all. */
    private fun allWarmed(app: String, count: Int) {
        val current = cluster.gatedPods(app)
        current shouldHaveSize count
        cluster.pods(app) shouldHaveSize count
        current.forEach { cluster.gateOf(it)?.reason shouldBe Keys.GateReasons.WARMED_UP }
    }

    @Test
    @Order(1)
    fun `1-3 scaled pods join the Service only after their gate is True and every run shows cold above warm`() {
        cluster.service("exam")
        client.resource(cluster.deployment("exam", 1, warmup)).create()
        EndpointWatch(client, ns, "exam").use { watch ->
            // opting in rolls the Deployment once; the new pod is warmed too
            eventually(Duration.ofMinutes(4)) { allWarmed("exam", 1) }
            client
                .apps()
                .deployments()
                .inNamespace(ns)
                .withName("exam")
                .scale(4)
            eventually(Duration.ofMinutes(8)) { allWarmed("exam", 4) }
            eventually(Duration.ofSeconds(30)) { watch.seenReady.size shouldBe 4 }
            watch.violations.shouldBeEmpty()
        }
        val current = cluster.pods("exam").map { it.metadata.name }
        val examRuns = cluster.runs().filter { it.spec.deployment == "exam" && it.spec.podName in current }
        examRuns shouldHaveSize 4
        for (run in examRuns) {
            val status = run.status
            status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
            for (p in listOf(status.cold!!, status.warm!!)) {
                listOf(p.p25, p.p50, p.p75, p.p90, p.p95).forEach { it.shouldNotBeNull() }
            }
            status.warm!!.p95!! shouldBeLessThan status.cold!!.p95!!
            println(
                "E2E run ${run.metadata.name}: cold p95 ${status.cold!!.p95} ms, warm p95 ${status.warm!!.p95} ms, " +
                    "requests ${status.requests?.total}, stop ${status.stopReason}, duration ${status.duration}, " +
                    "reaction ${status.reactionMillis} ms",
            )
        }
    }

    @Test
    @Order(2)
    fun `4 killing the leader in the middle of a run still ends with every pod warmed`() {
        client.resource(cluster.deployment("exam-kill", 2, warmup)).create()
        val first = leader()
        // the leader's k6 is caught running, so the check below has something to see die
        val children =
            eventually(Duration.ofMinutes(3)) {
                val running = cluster.runs().filter { it.status?.phase == WarmupRun.PHASE_RUNNING }
                val found = first.k6Children()
                withClue("an exam-kill run Running (${running.size} Running) and k6 children of ${first.identity}") {
                    running.any { it.spec.deployment == "exam-kill" } shouldBe true
                    found.shouldNotBeEmpty()
                }
                found
            }
        orphans += children
        first.kill()
        println("E2E killed leader ${first.identity} mid-run; its k6 children: ${orphans.size}")
        // k6 runs under setpriv --pdeathsig KILL: it dies with the operator, even on SIGKILL
        eventually(Duration.ofSeconds(10)) { orphans.count { it.isAlive } shouldBe 0 }
        eventually(Duration.ofMinutes(8)) { allWarmed("exam-kill", 2) }
        leader().identity shouldBe operators.single { it !== first }.identity
    }

    @Test
    @Order(3)
    fun `5 a target answering 500 follows each failure policy`() {
        val failing = warmup + (Annotations.PATHS to "GET /") + (Annotations.TIMEOUT to "20s")
        val http500 = mapOf("STATUS" to "500")
        client.resource(cluster.deployment("fail-open", 1, failing, "danki/http-status:dev", http500)).create()
        val closed = failing + (Annotations.FAILURE_POLICY to "closed")
        client.resource(cluster.deployment("fail-closed", 1, closed, "danki/http-status:dev", http500)).create()
        eventually(Duration.ofMinutes(3)) {
            val open = cluster.gatedPods("fail-open").single()
            cluster.gateOf(open)?.status shouldBe "True"
            cluster.gateOf(open)?.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
            // fail closed: the rollout stalls, the old ungated pod keeps serving, the new one stays out
            val shut = cluster.gatedPods("fail-closed").single()
            cluster.gateOf(shut)?.status shouldBe "False"
            cluster.gateOf(shut)?.reason shouldBe Keys.GateReasons.WARMUP_FAILED
            shut.status.conditions
                .single { it.type == "Ready" }
                .status shouldBe "False"
        }
        // the gate is written before the WarmupRun (RunRecorder), so the record may follow a moment later
        for (app in listOf("fail-open", "fail-closed")) {
            val pod =
                cluster
                    .gatedPods(app)
                    .single()
                    .metadata.name
            eventually(Duration.ofSeconds(30)) {
                val run = cluster.runs().single { it.spec.podName == pod }
                run.status.phase shouldBe WarmupRun.PHASE_FAILED
                run.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
                cluster.events(pod).any {
                    it.type == "Warning" && it.reason == Keys.EventReasons.WARMUP_FAILED
                } shouldBe true
            }
        }
    }

    @Test
    @Order(4)
    fun `6 a leader stopped with SIGTERM exits within seconds and leaves the Lease free or to the other replica`() {
        val standby = operator(2).also { operators += it }
        eventually(Duration.ofSeconds(60)) { standby.ready() shouldBe true }
        val first = leader()
        val took = first.terminate()
        println("E2E SIGTERM: leader ${first.identity} exited in ${took.toMillis()} ms")
        first.isAlive() shouldBe false
        took shouldBeLessThan Duration.ofSeconds(SIGTERM_EXIT_SECONDS)
        // deleted, or (when the standby was quicker than the delete) already the standby's: never left released
        val lease = cluster.lease()
        withClue("Lease after the leader's clean exit: ${lease?.spec}") {
            (lease == null || lease.spec?.holderIdentity == standby.identity) shouldBe true
        }
        eventually(Duration.ofSeconds(30)) { leader().identity shouldBe standby.identity }
    }

    @Test
    @Order(5)
    fun `7 a custom flow runs in a runner pod that holds no credentials and reaches only its pod`() {
        val flow = File(repo, "operator/src/test/resources/e2e/probe-flow.js").readText()
        client
            .configMaps()
            .inNamespace(ns)
            .resource(
                ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("probe-flow")
                    .endMetadata()
                    .addToData("flow.js", flow)
                    .build(),
            ).create()
        val scripted =
            mapOf(
                Annotations.WARMUP to "enabled",
                Annotations.PORT to "http",
                Annotations.SCRIPT to "probe-flow",
                Annotations.TIMEOUT to "4m",
            )
        client.resource(cluster.deployment("flow", 1, scripted)).create()
        eventually(Duration.ofMinutes(4)) { allWarmed("flow", 1) }
        val pod =
            cluster
                .gatedPods("flow")
                .single()
                .metadata.name
        // the gate is patched first, the WarmupRun's status right after it (RunRecorder)
        val run =
            eventually(Duration.ofSeconds(30)) {
                cluster.runs().single { it.spec.podName == pod }.also {
                    it.status.phase shouldBe
                        WarmupRun.PHASE_SUCCEEDED
                }
            }
        listOf(run.status.cold!!.p95, run.status.warm!!.p95).forEach { it.shouldNotBeNull() }
        println("E2E runner pod run ${run.metadata.name}: notes ${run.status.scriptNotes}")
        val notes = run.status.scriptNotes.orEmpty()
        notes shouldContain "token: absent"
        notes shouldContain "operator env: none"
        notes.single { it.startsWith("other address:") } shouldStartWith "other address: blocked"
        // the runner pod is gone once its result is read; none is left behind
        eventually(Duration.ofSeconds(30)) {
            client
                .pods()
                .inNamespace(ns)
                .withLabel(Keys.RunnerLabels.RUNNER)
                .list()
                .items
                .shouldBeEmpty()
        }
    }

    @Test
    @Order(6)
    fun `8 a CPU boost raises the pod's limit in place while it is gated and restores it before the gate`() {
        // 450m: the local cluster's node budget (500m) is a CFS quota above the pods, which no pod may exceed;
        // so the kubelet refuses a boost to 2 cores, as a real one refuses a resize it cannot apply
        client.resource(limited("boost", "450m")).create()
        client.resource(limited("boost-refused", "2")).create()
        // while it warms, the kubelet reports the raised limit on the container (an in-place resize)
        val seenBoosted =
            eventually(Duration.ofMinutes(3)) {
                val pod = cluster.pods("boost").single { PodGate.hasGate(it) }
                cpuLimitOf(pod) shouldBe 450L
                pod.metadata.name
            }
        eventually(Duration.ofMinutes(4)) {
            allWarmed("boost", 1)
            allWarmed("boost-refused", 1)
        }
        val pod = cluster.pods("boost").single()
        pod.metadata.name shouldBe seenBoosted
        val run = ownCpuBackAndRun(pod)
        val boost = run.cpuBoost.shouldNotBeNull()
        val times =
            "started ${run.startTime}, boosted ${boost.boostedAt}, " +
                "restored ${boost.restoredAt}, ended ${run.completionTime}"
        println("E2E CPU boost ${pod.metadata.name}: ${boost.summary}, $times")
        boost.state shouldBe CpuBoostStatus.RESTORED
        boost.summary shouldBe "200m->450m"
        boost.container shouldBe "app"
        // the cold pass (100 requests at 20/s) ran before the boost, the warm pass after the restore
        val pass = Duration.ofMillis(4_500)
        val boosted = Instant.parse(boost.boostedAt.shouldNotBeNull())
        Duration.between(Instant.parse(run.startTime), boosted) shouldBeGreaterThanOrEqualTo pass
        val restoredAt = Instant.parse(boost.restoredAt.shouldNotBeNull())
        Duration.between(restoredAt, Instant.parse(run.completionTime)) shouldBeGreaterThanOrEqualTo pass
        // restored before the gate: the gate's transition (seconds) is not before the restore (ms)
        val restored = Instant.parse(boost.restoredAt.shouldNotBeNull()).truncatedTo(ChronoUnit.SECONDS)
        Instant.parse(cluster.gateOf(pod)!!.lastTransitionTime) shouldBeGreaterThanOrEqualTo restored

        // refused: warmed all the same, at its own CPU, with a Warning Event that says why
        val refusedPod = cluster.pods("boost-refused").single()
        val refused = ownCpuBackAndRun(refusedPod).cpuBoost.shouldNotBeNull()
        println("E2E CPU boost refused ${refusedPod.metadata.name}: ${refused.message}")
        refused.state shouldBe CpuBoostStatus.REFUSED
        refused.message.shouldNotBeNull() shouldContain "the kubelet refused it"
        cluster.events(refusedPod.metadata.name).any {
            it.type == "Warning" && it.reason == Keys.EventReasons.CPU_BOOST_REFUSED
        } shouldBe true
        // both warm-ups ran on the leader, which counts how each boost ended
        val metrics = leader().metrics()
        metrics shouldContain "danki_cpu_boosts_total{result=\"restored\"} 1.0"
        metrics shouldContain "danki_cpu_boosts_total{result=\"refused\"} 1.0"
    }

    /** A Deployment of the sample service with a CPU limit of 200m, boosted to [boost] while gated. */
    private fun limited(name: String, boost: String) =
        cluster.deployment(name, 1, warmup + (Annotations.WARMUP_CPU to boost)).apply {
            spec.template.spec.containers
                .single()
                .resources =
                ResourceRequirementsBuilder()
                    .addToRequests("cpu", Quantity("100m"))
                    .addToLimits("cpu", Quantity("200m"))
                    .build()
        }

    /**
     * Checks that [pod] runs at its own CPU limit again, in its spec and in the kubelet's report, without
     * a restart; returns its succeeded run's status.
     */
    private fun ownCpuBackAndRun(pod: Pod): WarmupRunStatus {
        val container = pod.spec.containers.single()
        CpuQuantity.millisOf(container.resources.limits["cpu"]) shouldBe 200L
        cpuLimitOf(pod) shouldBe 200L
        PodGate.restartCount(pod) shouldBe 0
        // the gate is patched first, the WarmupRun's status right after it (RunRecorder)
        return eventually(Duration.ofSeconds(30)) {
            cluster.runs().single { it.spec.podName == pod.metadata.name }.status.also {
                it.phase shouldBe WarmupRun.PHASE_SUCCEEDED
            }
        }
    }

    /** The CPU limit the kubelet reports on the pod's one container, in millicores. */
    private fun cpuLimitOf(pod: Pod) =
        CpuQuantity.millisOf(
            pod.status.containerStatuses
                .single()
                .resources
                ?.limits
                ?.get("cpu"),
        )

    private companion object {
        /** The kubelet's default grace period is 30 s; a clean exit takes a fraction of it. */
        const val SIGTERM_EXIT_SECONDS = 8L
    }
}
