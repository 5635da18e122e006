package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.warmup.FailurePolicy
import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.doubles.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.time.Duration

/**
 * The operator in-process against a real kube-apiserver (no kubelet: the tests write pod status as a
 * kubelet would) and real k6 against a loopback HTTP server standing in for the pod.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorIT {
    private val client = TestApiServer.client
    private val ns = "danki-it"
    private val target = TestTarget(200)
    private val failing = TestTarget(500)
    private lateinit var operator: Operator

    /** Small passes so a warm-up takes seconds. */
    private val fast =
        mapOf(
            Annotations.WARMUP to "enabled",
            Annotations.REQUESTS to "20",
            Annotations.RATE to "50",
            Annotations.WARMUP_RATE to "200",
            Annotations.MAX_WARMUP_REQUESTS to "400",
            Annotations.TIMEOUT to "40s",
        )

    @BeforeAll
    fun start() {
        Fixtures.namespace(client, ns)
        val config =
            OperatorConfig(
                watchNamespaces = listOf(ns),
                httpPort = 0,
                leaderElection = false,
                identity = "it",
                k6Binary = File(TestApiServer.repo, "bin/k6").path,
                k6Script = File(TestApiServer.repo, "k6-scripts/warmup.js").path,
            )
        operator = Operator(config, client)
        operator.watch()
        operator.lead()
    }

    @AfterAll
    fun stop() {
        operator.stop()
        target.close()
        failing.close()
    }

    private fun deployment(name: String) =
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName(name)
            .get()

    private fun pod(name: String) =
        client
            .pods()
            .inNamespace(ns)
            .withName(name)
            .get()

    private fun gate(name: String) = pod(name).status?.conditions?.firstOrNull { it.type == Keys.GATE_CONDITION }

    private fun run(name: String) =
        client
            .resources(WarmupRun::class.java)
            .inNamespace(ns)
            .withName(name)
            .get()

    private fun events(name: String): List<Event> =
        client
            .v1()
            .events()
            .inNamespace(ns)
            .list()
            .items
            .filter { it.involvedObject.name == name }

    private fun create(deployment: Deployment) = client.resource(deployment).create()

    private fun createReadyPod(
        deployment: String,
        name: String,
        port: Int,
    ): Pod {
        val pod = client.resource(Fixtures.gatedPod(ns, deployment, name, port)).create()
        Fixtures.markReady(client, pod, "127.0.0.1")
        return pod
    }

    @Test
    fun `opting in applies the label and gate as manager danki, opting out removes them`() {
        create(Fixtures.deployment(ns, "opt", mapOf(Annotations.WARMUP to "enabled")))
        eventually(Duration.ofSeconds(20)) {
            val d = deployment("opt")
            d.spec.template.spec.readinessGates
                .map { it.conditionType } shouldContain Keys.GATE_CONDITION
            d.spec.template.metadata.labels[Keys.WARMUP_LABEL] shouldBe Keys.WARMUP_LABEL_VALUE
            val danki = d.metadata.managedFields.single { it.manager == Keys.FIELD_MANAGER }
            danki.operation shouldBe "Apply"
            danki.fieldsV1.additionalProperties.toString() shouldContain "readinessGates"
        }
        client.apps().deployments().inNamespace(ns).withName("opt").edit { d ->
            d.apply { metadata.annotations.remove(Annotations.WARMUP) }
        }
        eventually(Duration.ofSeconds(20)) {
            val d = deployment("opt")
            d.spec.template.spec.readinessGates
                .orEmpty()
                .map { it.conditionType }
                .contains(Keys.GATE_CONDITION) shouldBe false
            d.spec.template.metadata.labels
                .containsKey(Keys.WARMUP_LABEL) shouldBe false
            d.metadata.managedFields.none { it.manager == Keys.FIELD_MANAGER } shouldBe true
        }
    }

    @Test
    fun `a template that already carries the gate is not patched`() {
        create(Fixtures.deployment(ns, "own-gate", mapOf(Annotations.WARMUP to "enabled"), userGate = true))
        Thread.sleep(2_000)
        deployment("own-gate").metadata.managedFields.none { it.manager == Keys.FIELD_MANAGER } shouldBe true
    }

    @Test
    fun `a ready gated pod is warmed by k6 and its pods-status condition is applied by danki`() {
        create(Fixtures.deployment(ns, "warm", fast + (Annotations.PORT to target.port.toString())))
        createReadyPod("warm", "warm-abc123-x1", target.port)
        val finished =
            eventually(Duration.ofSeconds(60)) {
                val r = run("warm-abc123-x1").shouldNotBeNull()
                r.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
                r
            }
        val status = finished.status
        status.podName shouldBe "warm-abc123-x1"
        status.podIP shouldBe "127.0.0.1"
        status.startTime.shouldNotBeNull()
        status.completionTime.shouldNotBeNull()
        status.requests!!.cold shouldBe 20L
        status.requests!!.warm shouldBe 20L
        status.requests!!.warmup!! shouldBeGreaterThan 0L
        status.cold!!.p95!! shouldBeGreaterThan 0.0
        status.warm!!.p95!! shouldBeGreaterThan 0.0
        listOf("Converged", "TargetReached", "MaxRequests", "Timeout") shouldContain status.stopReason
        status.conditions!!.single().reason shouldBe Keys.RunConditions.REASON_SUCCEEDED
        finished.metadata.ownerReferences
            .single()
            .kind shouldBe "Pod"
        eventually(Duration.ofSeconds(10)) {
            val condition = gate("warm-abc123-x1").shouldNotBeNull()
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMED_UP
            condition.message shouldContain "cold p95"
        }
        val statusManager = pod("warm-abc123-x1").metadata.managedFields.single { it.manager == Keys.FIELD_MANAGER }
        statusManager.subresource shouldBe "status"
        statusManager.operation shouldBe "Apply"
        eventually(Duration.ofSeconds(10)) {
            events("warm-abc123-x1").map { it.reason }.toSet() shouldBe
                setOf(Keys.EventReasons.WARMUP_STARTED, Keys.EventReasons.WARMED_UP)
        }
        target.warmupHeaders.get() shouldBe target.requests.get()
    }

    @Test
    fun `a container restart sets the gate False and warms the pod again`() {
        create(Fixtures.deployment(ns, "restart", fast + (Annotations.PORT to target.port.toString())))
        val pod = createReadyPod("restart", "restart-abc123-x1", target.port)
        eventually(Duration.ofSeconds(60)) { gate("restart-abc123-x1")!!.status shouldBe "True" }
        Fixtures.markReady(client, pod, "127.0.0.1", restarts = 1)
        val again = RunStore.runName("restart-abc123-x1", 1)
        eventually(Duration.ofSeconds(60)) { run(again)!!.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED }
        eventually(Duration.ofSeconds(10)) { gate("restart-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMED_UP }
    }

    @Test
    fun `an invalid annotation is a Warning event and the open policy releases the pod`() {
        create(Fixtures.deployment(ns, "bad", fast + (Annotations.RATE to "fast") + (Annotations.PORT to "8080")))
        eventually(Duration.ofSeconds(20)) {
            val warning = events("bad").single { it.reason == Keys.EventReasons.INVALID_CONFIG }
            warning.type shouldBe "Warning"
            warning.message shouldContain "danki.dev/rate=\"fast\": expected requests per second"
        }
        createReadyPod("bad", "bad-abc123-x1", 8080)
        eventually(Duration.ofSeconds(20)) {
            val condition = gate("bad-abc123-x1")!!
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
        }
        val r = run("bad-abc123-x1")!!
        r.status.phase shouldBe WarmupRun.PHASE_FAILED
        r.status.reason shouldBe Keys.RunConditions.REASON_INVALID_CONFIG
    }

    @Test
    fun `a target answering 500 fails closed and the pod stays gated`() {
        val annotations =
            fast + (Annotations.PORT to failing.port.toString()) +
                (Annotations.FAILURE_POLICY to FailurePolicy.CLOSED.value) + (Annotations.TIMEOUT to "12s")
        create(Fixtures.deployment(ns, "broken", annotations))
        createReadyPod("broken", "broken-abc123-x1", failing.port)
        eventually(Duration.ofSeconds(40)) {
            val r = run("broken-abc123-x1")!!
            r.status.phase shouldBe WarmupRun.PHASE_FAILED
            r.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
            (r.status.attempts!! > 1) shouldBe true
        }
        eventually(Duration.ofSeconds(10)) {
            val condition = gate("broken-abc123-x1")!!
            condition.status shouldBe "False"
            condition.reason shouldBe Keys.GateReasons.WARMUP_FAILED
        }
        events("broken-abc123-x1").single { it.reason == Keys.EventReasons.WARMUP_FAILED }.type shouldBe "Warning"
    }

    @Test
    fun `opting out releases a gated pod with WarmupDisabled`() {
        create(Fixtures.deployment(ns, "leave", mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to "10m")))
        // no pod IP yet: the pod waits gated
        client.resource(Fixtures.gatedPod(ns, "leave", "leave-abc123-x1", 8080)).create()
        Thread.sleep(1_000)
        client.apps().deployments().inNamespace(ns).withName("leave").edit { d ->
            d.apply { metadata.annotations[Annotations.WARMUP] = "disabled" }
        }
        eventually(Duration.ofSeconds(20)) {
            val condition = gate("leave-abc123-x1")!!
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_DISABLED
        }
    }
}
