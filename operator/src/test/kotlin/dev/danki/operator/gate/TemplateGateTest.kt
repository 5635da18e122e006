package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import dev.danki.operator.leader.Leadership
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class TemplateGateTest {
    private val gate = TemplateGate(io.mockk.mockk(relaxed = true), Leadership.always())

    private fun deployment(
        withGate: Boolean,
        managedByDanki: Boolean,
        withLabel: Boolean = withGate && managedByDanki,
        otherGates: List<String> = emptyList(),
        /** What danki's entry owns: the readiness gates (as its ADD applies them) or only the label. */
        dankiOwnsGates: Boolean = true,
    ): Deployment {
        val gates = otherGates + listOfNotNull(Keys.GATE_CONDITION.takeIf { withGate })
        val builder =
            DeploymentBuilder()
                .withNewMetadata()
                .withName("d")
                .withNamespace("n")
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewMetadata()
                .apply { if (withLabel) addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE) }
                .endMetadata()
                .withNewSpec()
                .apply { gates.forEach { addNewReadinessGate(it) } }
                .endSpec()
                .endTemplate()
                .endSpec()
        if (managedByDanki) {
            builder
                .editMetadata()
                .addToManagedFields(
                    ManagedFieldsEntryBuilder()
                        .withManager(Keys.FIELD_MANAGER)
                        .withOperation("Apply")
                        .withNewFieldsV1()
                        .addToAdditionalProperties("f:spec", mapOf("f:template" to owned(dankiOwnsGates)))
                        .endFieldsV1()
                        .build(),
                ).endMetadata()
        }
        return builder.build()
    }

    private fun owned(gates: Boolean): Map<String, Any> {
        val label =
            mapOf("f:metadata" to mapOf("f:labels" to mapOf("f:${Keys.WARMUP_LABEL}" to emptyMap<String, Any>())))
        return if (gates) label + ("f:spec" to mapOf("f:readinessGates" to emptyMap<String, Any>())) else label
    }

    private fun change(gate: Boolean, danki: Boolean, switch: WarmupSwitch) =
        this.gate.changeFor(deployment(gate, danki), switch)

    @Test
    fun `opt-in adds the gate once`() {
        change(gate = false, danki = false, WarmupSwitch.ENABLED) shouldBe TemplateGate.Change.ADD
        change(gate = true, danki = true, WarmupSwitch.ENABLED) shouldBe TemplateGate.Change.NONE
    }

    @Test
    fun `a template that already carries the user's gate is given danki's label, and only that`() {
        // its pods are warmed or released, so danki's pod cache, which holds labelled pods, must hold them
        change(gate = true, danki = false, WarmupSwitch.ENABLED) shouldBe TemplateGate.Change.LABEL
        change(gate = true, danki = false, WarmupSwitch.ABSENT) shouldBe TemplateGate.Change.LABEL
        change(gate = true, danki = false, WarmupSwitch.DISABLED) shouldBe TemplateGate.Change.LABEL
        val labelled = deployment(withGate = true, managedByDanki = true, withLabel = true, dankiOwnsGates = false)
        for (switch in listOf(WarmupSwitch.ENABLED, WarmupSwitch.ABSENT, WarmupSwitch.DISABLED)) {
            gate.changeFor(labelled, switch) shouldBe TemplateGate.Change.NONE
        }
        // danki applied only the label: the gate is still the user's, and so is the warm-up it asks for
        TemplateGate.hasUserGate(labelled) shouldBe true
    }

    @Test
    fun `opt-out removes only what danki applied`() {
        change(gate = true, danki = true, WarmupSwitch.ABSENT) shouldBe TemplateGate.Change.REMOVE
        change(gate = true, danki = true, WarmupSwitch.DISABLED) shouldBe TemplateGate.Change.REMOVE
        change(gate = false, danki = false, WarmupSwitch.ABSENT) shouldBe TemplateGate.Change.NONE
    }

    @Test
    fun `once danki's gate and label are gone, opt-out has nothing left to apply`() {
        // danki still owns the user's gates after an opt-out that kept them
        val keptUserGates =
            deployment(withGate = false, managedByDanki = true, otherGates = listOf("example.com/ready"))
        gate.changeFor(keptUserGates, WarmupSwitch.ABSENT) shouldBe TemplateGate.Change.NONE
        TemplateGate.userGates(keptUserGates) shouldBe listOf("example.com/ready")
    }

    @Test
    fun `an invalid switch leaves the template as it is`() {
        change(gate = true, danki = true, WarmupSwitch.INVALID) shouldBe TemplateGate.Change.NONE
        change(gate = false, danki = false, WarmupSwitch.INVALID) shouldBe TemplateGate.Change.NONE
    }
}
