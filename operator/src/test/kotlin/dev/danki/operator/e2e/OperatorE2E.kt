package dev.danki.operator.e2e

import dev.danki.operator.gate.PodGate
import dev.danki.operator.it.eventually
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.ServiceBuilder
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.doubles.shouldBeLessThan
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import java.io.File
import java.time.Duration
import java.util.Collections
import java.util.concurrent.TimeUnit

/**
 * The five end-to-end scenarios on the local cluster (KUBECONFIG), with real JVM pods of the
 * sample service, real k6, and two operator processes electing a leader on a Lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class OperatorE2E {
    private val client = KubernetesClientBuilder().build()
    private val suffix = System.currentTimeMillis().toString(36)
    private val ns = "danki-e2e-$suffix"
    private val repo = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
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
        val crd =
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .load(File(repo, "operator/target/classes/META-INF/fabric8/warmupruns.danki.dev-v1.yml"))
                .item()
        client
            .resource<CustomResourceDefinition>(crd)
            .fieldManager("danki-e2e")
            .forceConflicts()
            .serverSideApply()
        client
            .namespaces()
            .resource(
                NamespaceBuilder()
                    .withNewMetadata()
                    .withName(ns)
                    .endMetadata()
                    .build(),
            ).create()
        eventually(Duration.ofSeconds(30)) {
            client
                .serviceAccounts()
                .inNamespace(ns)
                .withName("default")
                .get()!!
        }
        repeat(2) { operators += OperatorProcess("e2e-$suffix-$it", listOf(ns), ns, logDir) }
    }

    @AfterAll
    fun stop() {
        operators.forEach { it.stop() }
        // a killed leader's k6 stops itself within its time budget; none may outlive the test
        orphans.forEach { it.destroyForcibly() }
        client.namespaces().withName(ns).delete()
        client.close()
    }

    private fun deployment(
        name: String,
        replicas: Int,
        annotations: Map<String, String>,
        image: String = SAMPLE_IMAGE,
        env: Map<String, String> = emptyMap(),
    ): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .withAnnotations<String, String>(annotations)
            .endMetadata()
            .withNewSpec()
            .withReplicas(replicas)
            .withNewSelector()
            .addToMatchLabels("app", name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", name)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage(image)
            .addNewPort()
            .withName("http")
            .withContainerPort(PORT)
            .endPort()
            .addNewEnv()
            .withName("PORT")
            .withValue(PORT.toString())
            .endEnv()
            .apply { env.forEach { (k, v) -> addNewEnv().withName(k).withValue(v).endEnv() } }
            .apply {
                // as users deploy it: ContainersReady means the JVM listens (http-status answers 500 to probes too)
                if (image == SAMPLE_IMAGE) {
                    withNewReadinessProbe()
                        .withNewHttpGet()
                        .withPath("/readyz")
                        .withNewPort(PORT)
                        .endHttpGet()
                        .withPeriodSeconds(1)
                        .endReadinessProbe()
                }
            }.endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build()

    private fun service(name: String) =
        client
            .resource(
                ServiceBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(ns)
                    .endMetadata()
                    .withNewSpec()
                    .addToSelector("app", name)
                    .addNewPort()
                    .withPort(PORT)
                    .withNewTargetPort(PORT)
                    .endPort()
                    .endSpec()
                    .build(),
            ).create()

    private fun pods(app: String): List<Pod> =
        client
            .pods()
            .inNamespace(ns)
            .withLabel("app", app)
            .list()
            .items
            .filter { it.metadata.deletionTimestamp == null }

    /** Pods of the rollout danki gated; the pod from before opt-in has no gate and is not danki's. */
    private fun gatedPods(app: String): List<Pod> = pods(app).filter { PodGate.hasGate(it) }

    private fun gateOf(pod: Pod) = pod.status?.conditions?.firstOrNull { it.type == Keys.GATE_CONDITION }

    private fun runs(): List<WarmupRun> =
        client
            .resources(WarmupRun::class.java)
            .inNamespace(ns)
            .list()
            .items

    private fun leader(): OperatorProcess {
        val holder =
            eventually(Duration.ofSeconds(60)) {
                client
                    .leases()
                    .inNamespace(ns)
                    .withName("danki-e2e")
                    .get()!!
                    .spec.holderIdentity!!
            }
        return operators.single { it.identity == holder }
    }

    /** Polls the Service's EndpointSlices: a ready endpoint whose pod's gate is not True is a violation. */
    private inner class EndpointWatch(
        private val service: String,
    ) : AutoCloseable {
        val violations: MutableList<String> = Collections.synchronizedList(mutableListOf())
        val seenReady: MutableSet<String> = Collections.synchronizedSet(mutableSetOf())

        @Volatile private var running = true
        private val thread =
            Thread {
                val end = System.nanoTime() + TimeUnit.MINUTES.toNanos(WATCH_MINUTES)
                while (running && System.nanoTime() < end) {
                    check()
                    Thread.sleep(POLL_MILLIS)
                }
            }.apply { start() }

        private fun check() {
            val slices =
                client
                    .discovery()
                    .v1()
                    .endpointSlices()
                    .inNamespace(ns)
                    .withLabel("kubernetes.io/service-name", service)
                    .list()
                    .items
            val ready = slices.flatMap { it.endpoints.orEmpty() }.filter { it.conditions?.ready == true }
            for (podName in ready.mapNotNull { it.targetRef?.name }) {
                val pod =
                    client
                        .pods()
                        .inNamespace(ns)
                        .withName(podName)
                        .get()
                if (pod == null || !PodGate.hasGate(pod)) continue
                seenReady += podName
                val gate = gateOf(pod)
                if (gate?.status != "True") violations += "$podName ready in EndpointSlice with gate ${gate?.status}"
            }
        }

        override fun close() {
            running = false
            thread.join(TimeUnit.SECONDS.toMillis(5))
        }
    }

    @Test
    @Order(1)
    fun `1-3 scaled pods join the Service only after their gate is True and every run shows cold above warm`() {
        service("exam")
        client.resource(deployment("exam", 1, warmup)).create()
        EndpointWatch("exam").use { watch ->
            // opting in rolls the Deployment once; the new pod is warmed too
            eventually(Duration.ofMinutes(4)) {
                val current = gatedPods("exam")
                current shouldHaveSize 1
                pods("exam") shouldHaveSize 1
                gateOf(current.single())?.reason shouldBe Keys.GateReasons.WARMED_UP
            }
            client
                .apps()
                .deployments()
                .inNamespace(ns)
                .withName("exam")
                .scale(4)
            eventually(Duration.ofMinutes(8)) {
                val current = gatedPods("exam")
                current shouldHaveSize 4
                pods("exam") shouldHaveSize 4
                current.forEach { gateOf(it)?.reason shouldBe Keys.GateReasons.WARMED_UP }
            }
            eventually(Duration.ofSeconds(30)) { watch.seenReady.size shouldBe 4 }
            watch.violations.shouldBeEmpty()
        }
        val current = pods("exam").map { it.metadata.name }
        val examRuns = runs().filter { it.spec.deployment == "exam" && it.spec.podName in current }
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
        client.resource(deployment("exam-kill", 2, warmup)).create()
        val first = leader()
        eventually(Duration.ofMinutes(3)) {
            val running = runs().filter { it.status?.phase == WarmupRun.PHASE_RUNNING }
            running.any { it.spec.deployment == "exam-kill" } shouldBe true
        }
        orphans += first.k6Children()
        first.kill()
        println("E2E killed leader ${first.identity} mid-run; its k6 children: ${orphans.size}")
        // k6 runs under setpriv --pdeathsig KILL: it dies with the operator, even on SIGKILL
        eventually(Duration.ofSeconds(10)) { orphans.count { it.isAlive } shouldBe 0 }
        eventually(Duration.ofMinutes(8)) {
            val current = gatedPods("exam-kill")
            current shouldHaveSize 2
            pods("exam-kill") shouldHaveSize 2
            current.forEach { gateOf(it)?.reason shouldBe Keys.GateReasons.WARMED_UP }
        }
        leader().identity shouldBe operators.single { it !== first }.identity
    }

    @Test
    @Order(3)
    fun `5 a target answering 500 follows each failure policy`() {
        val failing = warmup + (Annotations.PATHS to "GET /") + (Annotations.TIMEOUT to "20s")
        val http500 = mapOf("STATUS" to "500")
        client.resource(deployment("fail-open", 1, failing, "danki/http-status:dev", http500)).create()
        val closed = failing + (Annotations.FAILURE_POLICY to "closed")
        client.resource(deployment("fail-closed", 1, closed, "danki/http-status:dev", http500)).create()
        eventually(Duration.ofMinutes(3)) {
            val open = gatedPods("fail-open").single()
            gateOf(open)?.status shouldBe "True"
            gateOf(open)?.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
            // fail closed: the rollout stalls, the old ungated pod keeps serving, the new one stays out
            val shut = gatedPods("fail-closed").single()
            gateOf(shut)?.status shouldBe "False"
            gateOf(shut)?.reason shouldBe Keys.GateReasons.WARMUP_FAILED
            shut.status.conditions
                .single { it.type == "Ready" }
                .status shouldBe "False"
        }
        for (app in listOf("fail-open", "fail-closed")) {
            val pod = gatedPods(app).single().metadata.name
            val run = runs().single { it.spec.podName == pod }
            run.status.phase shouldBe WarmupRun.PHASE_FAILED
            run.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
            client.v1().events().inNamespace(ns).list().items.any {
                it.involvedObject.name == pod && it.reason == Keys.EventReasons.WARMUP_FAILED && it.type == "Warning"
            } shouldBe true
        }
    }

    private companion object {
        const val PORT = 8080
        const val SAMPLE_IMAGE = "danki/sample-service:dev"
        const val POLL_MILLIS = 100L
        const val WATCH_MINUTES = 15L
    }
}
