package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration

/**
 * The pod template side against a real kube-apiserver: gate and label on and off with server-side
 * apply, the user's own gates kept, and gated pods released when warm-up is switched off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorIT {
    private val space = ItNamespace("danki-it")
    private val target = TestTarget(200)
    private lateinit var operator: Operator

    @BeforeAll
    fun start() {
        operator = space.operator()
    }

    @AfterAll
    fun stop() {
        operator.stop()
        target.close()
    }

    private fun gates(name: String) =
        space
            .deployment(name)!!
            .spec.template.spec.readinessGates
            .orEmpty()
            .map { g -> g.conditionType }

    @Test
    fun `opting in applies the label and gate as manager danki, opting out removes them`() {
        space.create(Fixtures.deployment(space.ns, "opt", mapOf(Annotations.WARMUP to "enabled")))
        eventually(Duration.ofSeconds(20)) {
            val d = space.deployment("opt")!!
            gates("opt") shouldContain Keys.GATE_CONDITION
            d.spec.template.metadata.labels[Keys.WARMUP_LABEL] shouldBe Keys.WARMUP_LABEL_VALUE
            val danki = d.metadata.managedFields.single { m -> m.manager == Keys.FIELD_MANAGER }
            danki.operation shouldBe "Apply"
            danki.fieldsV1.additionalProperties.toString() shouldContain "readinessGates"
        }
        space.editDeployment("opt") { d -> d.metadata.annotations.remove(Annotations.WARMUP) }
        eventually(Duration.ofSeconds(20)) {
            val d = space.deployment("opt")!!
            gates("opt").contains(Keys.GATE_CONDITION) shouldBe false
            d.spec.template.metadata.labels
                .containsKey(Keys.WARMUP_LABEL) shouldBe false
            d.metadata.managedFields.none { m -> m.manager == Keys.FIELD_MANAGER } shouldBe true
        }
    }

    @Test
    fun `JOSDK's reconcile metrics are on the operator's one metrics page, beside danki's own`() {
        space.create(Fixtures.deployment(space.ns, "counted", mapOf(Annotations.WARMUP to "enabled")))
        eventually(Duration.ofSeconds(20)) {
            val series = operator.metricsPage().lines().filterNot { it.startsWith("#") }
            series.any { it.startsWith("danki_leader ") } shouldBe true
            series.any {
                it.startsWith("operator_sdk_reconciliations_started_total{") && it.contains("kind=\"Deployment\"")
            } shouldBe true
            val succeeded = "operator_sdk_controllers_execution_reconcile_success_total{controller=\"deployments\""
            series.any { it.startsWith(succeeded) } shouldBe true
            // the pod controller's gauges are there from its start, before any pod
            series.any { it.startsWith("operator_sdk_reconciliations_queue_size_pods{") } shouldBe true
            // per-resource series are off: no series names the Deployment
            series.none { it.contains("\"counted\"") } shouldBe true
        }
    }

    @Test
    fun `opting out keeps the user's other readiness gates`() {
        val other = "example.com/load-balancer-ready"
        val enabled = mapOf(Annotations.WARMUP to "enabled")
        space.create(Fixtures.deployment(space.ns, "others", enabled, otherGates = listOf(other)))
        eventually(Duration.ofSeconds(20)) { gates("others") shouldBe listOf(other, Keys.GATE_CONDITION) }
        space.editDeployment("others") { d -> d.metadata.annotations.remove(Annotations.WARMUP) }
        eventually(Duration.ofSeconds(20)) {
            gates("others") shouldBe listOf(other)
            space
                .deployment("others")!!
                .spec.template.metadata.labels
                .containsKey(Keys.WARMUP_LABEL) shouldBe false
        }
    }

    @Test
    fun `a template that already carries the gate is never written, and its pods are warmed with its settings`() {
        val annotations =
            mapOf(Annotations.WARMUP to "enabled", Annotations.REQUESTS to "20", Annotations.TIMEOUT to "40s")
        val created =
            space.create(Fixtures.deployment(space.ns, "own-gate", annotations, port = target.port, userGate = true))
        space.createReadyPod("own-gate", "own-gate-abc123-x1", target.port)
        // the run used the Deployment's 20 requests (not the default 100): the operator had read it
        eventually(Duration.ofSeconds(60)) {
            space
                .run("own-gate-abc123-x1")!!
                .status.requests!!
                .cold shouldBe 20L
        }
        eventually(Duration.ofSeconds(10)) {
            space.gate("own-gate-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMED_UP
        }
        val now = space.deployment("own-gate")!!
        now.metadata.resourceVersion shouldBe created.metadata.resourceVersion
        now.metadata.managedFields.none { m -> m.manager == Keys.FIELD_MANAGER } shouldBe true
    }

    @Test
    fun `a template with the user's gate but not danki's label is given the label alone`() {
        // danki caches only labelled pods: without the label, this Deployment's gated pods would be unseen
        val gated = Fixtures.deployment(space.ns, "gate-only", mapOf(Annotations.WARMUP to "enabled"), userGate = true)
        gated.spec.template.metadata.labels
            .remove(Keys.WARMUP_LABEL)
        space.create(gated)
        eventually(Duration.ofSeconds(20)) {
            val d = space.deployment("gate-only")!!
            d.spec.template.metadata.labels[Keys.WARMUP_LABEL] shouldBe Keys.WARMUP_LABEL_VALUE
            val danki = d.metadata.managedFields.single { m -> m.manager == Keys.FIELD_MANAGER }
            danki.fieldsV1.additionalProperties.toString() shouldNotContain "readinessGates"
        }
        // the gate is still the user's: removing the annotation leaves it, and its pods are still warmed
        space.editDeployment("gate-only") { d -> d.metadata.annotations.remove(Annotations.WARMUP) }
        continually(Duration.ofSeconds(3)) { gates("gate-only") shouldBe listOf(Keys.GATE_CONDITION) }
    }

    @Test
    fun `opting out releases a gated pod with WarmupDisabled`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to "10m")
        space.create(Fixtures.deployment(space.ns, "leave", annotations))
        // no pod IP yet: the pod waits gated, with no decision yet
        space.client.resource(Fixtures.gatedPod(space.ns, "leave", "leave-abc123-x1", 8080)).create()
        eventually(Duration.ofSeconds(20)) { gates("leave") shouldContain Keys.GATE_CONDITION }
        // only once the operator has the pod (and so has queued it) does "no decision" mean anything
        eventually(Duration.ofSeconds(20)) {
            operator.caches.pods
                .get(space.ns, "leave-abc123-x1")
                .shouldNotBeNull()
        }
        continually(Duration.ofSeconds(2)) { space.gate("leave-abc123-x1") shouldBe null }
        space.editDeployment("leave") { d -> d.metadata.annotations[Annotations.WARMUP] = "disabled" }
        eventually(Duration.ofSeconds(20)) {
            val condition = space.gate("leave-abc123-x1").shouldNotBeNull()
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_DISABLED
        }
    }

    @Test
    fun `an explicit disabled releases pods even when the user wrote the gate into the template`() {
        val annotations = mapOf(Annotations.WARMUP to "disabled")
        space.create(Fixtures.deployment(space.ns, "user-off", annotations, userGate = true))
        space.createReadyPod("user-off", "user-off-abc123-x1", 8080)
        eventually(Duration.ofSeconds(20)) {
            val condition = space.gate("user-off-abc123-x1").shouldNotBeNull()
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_DISABLED
        }
        space.run("user-off-abc123-x1") shouldBe null
    }

    @Test
    fun `a bad danki-dev-warmup value is a Warning, leaves the template alone and fails gated pods by policy`() {
        val annotations = mapOf(Annotations.WARMUP to "yes", Annotations.TIMEOUT to "40s")
        val created = space.create(Fixtures.deployment(space.ns, "typo", annotations, userGate = true))
        eventually(Duration.ofSeconds(20)) {
            space.events("typo").single { e -> e.reason == Keys.EventReasons.INVALID_CONFIG }.message shouldContain
                "danki.dev/warmup=\"yes\": expected enabled or disabled"
        }
        space.createReadyPod("typo", "typo-abc123-x1", 8080)
        eventually(Duration.ofSeconds(20)) {
            space.gate("typo-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
            space.run("typo-abc123-x1")!!.status.reason shouldBe Keys.RunConditions.REASON_INVALID_CONFIG
        }
        space.deployment("typo")!!.metadata.resourceVersion shouldBe created.metadata.resourceVersion
    }

    @Test
    fun `a misspelt danki key is named in a Warning with the key it resembles`() {
        val annotations = mapOf("danki.dev/warmpu" to "enabled", "danki.dev/timout" to "2m")
        space.create(Fixtures.deployment(space.ns, "misspelt", annotations))
        eventually(Duration.ofSeconds(20)) {
            val messages =
                space.events("misspelt").filter { it.reason == Keys.EventReasons.UNKNOWN_ANNOTATION }.map { it.message }
            messages.toSet() shouldBe
                setOf(
                    "unknown annotation danki.dev/timout; did you mean danki.dev/timeout?",
                    "unknown annotation danki.dev/warmpu; did you mean danki.dev/warmup?",
                )
            space
                .events(
                    "misspelt",
                ).single { it.reason == Keys.EventReasons.UNKNOWN_ANNOTATION && it.message.contains("warmpu") }
                .type shouldBe
                "Warning"
        }
    }

    @Test
    fun `toggling warm-up off and on ten times in ten seconds, ending on, leaves the pod gated for its warm-up`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to "10m")
        space.create(Fixtures.deployment(space.ns, "toggle", annotations))
        // no pod IP: the pod waits gated, so only a release could decide it during the toggles
        space.client.resource(Fixtures.gatedPod(space.ns, "toggle", "toggle-abc123-x1", 8080)).create()
        eventually(Duration.ofSeconds(20)) {
            operator.caches.pods
                .get(space.ns, "toggle-abc123-x1")
                .shouldNotBeNull()
        }
        repeat(TOGGLES) { i ->
            val value = if (i % 2 == 0) "disabled" else "enabled"
            // the operator writes the template meanwhile: a conflict is retried, as kubectl would
            eventually(Duration.ofSeconds(5)) {
                space.editDeployment("toggle") { d -> d.metadata.annotations[Annotations.WARMUP] = value }
            }
            Thread.sleep(TOGGLE_MILLIS)
        }
        space.deployment("toggle")!!.metadata.annotations[Annotations.WARMUP] shouldBe "enabled"
        continually(Duration.ofSeconds(4)) { space.gate("toggle-abc123-x1") shouldBe null }
    }

    private companion object {
        const val TOGGLES = 10
        const val TOGGLE_MILLIS = 1_000L
    }
}
