package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class TemplateGateTest {
    private val gate = TemplateGate(io.mockk.mockk(relaxed = true))

    private fun deployment(
        withGate: Boolean,
        managedByDanki: Boolean,
    ): Deployment {
        val builder =
            DeploymentBuilder()
                .withNewMetadata()
                .withName("d")
                .withNamespace("n")
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .endSpec()
                .endTemplate()
                .endSpec()
        if (withGate) {
            builder
                .editSpec()
                .editTemplate()
                .editSpec()
                .addNewReadinessGate(Keys.GATE_CONDITION)
                .endSpec()
                .endTemplate()
                .endSpec()
        }
        if (managedByDanki) {
            builder
                .editMetadata()
                .addToManagedFields(
                    ManagedFieldsEntryBuilder().withManager(Keys.FIELD_MANAGER).withOperation("Apply").build(),
                ).endMetadata()
        }
        return builder.build()
    }

    private fun change(
        gate: Boolean,
        danki: Boolean,
        optedIn: Boolean,
    ) = this.gate.changeFor(deployment(gate, danki), optedIn)

    @Test
    fun `opt-in adds the gate once`() {
        change(gate = false, danki = false, optedIn = true) shouldBe TemplateGate.Change.ADD
        change(gate = true, danki = true, optedIn = true) shouldBe TemplateGate.Change.NONE
    }

    @Test
    fun `a template that already carries the user's gate needs no patch`() {
        change(gate = true, danki = false, optedIn = true) shouldBe TemplateGate.Change.NONE
        change(gate = true, danki = false, optedIn = false) shouldBe TemplateGate.Change.NONE
    }

    @Test
    fun `opt-out removes only what danki applied`() {
        change(gate = true, danki = true, optedIn = false) shouldBe TemplateGate.Change.REMOVE
        change(gate = false, danki = false, optedIn = false) shouldBe TemplateGate.Change.NONE
    }
}
