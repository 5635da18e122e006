package dev.danki.operator.controller

import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.leader.Leadership
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanParser
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.javaoperatorsdk.operator.api.reconciler.Context
import io.mockk.Runs
import io.mockk.every
import io.mockk.just
import io.mockk.mockk
import io.mockk.spyk
import io.mockk.verify
import org.junit.jupiter.api.Test

/**
 * What webhook mode may do to a Deployment's template (issue 48, hole 7): nothing, unless the chart
 * granted `patch` on Deployments to take off a gate that template mode wrote (`webhook.stripTemplateGates`).
 * Without it such a gate stays, and its Deployment gets a Warning that says how to take it off.
 */
class DeploymentReconcilerTest {
    private val template = spyk(TemplateGate(mockk(), Leadership.always())) { every { apply(any(), any()) } just Runs }
    private val events = mockk<EventRecorder>(relaxed = true)
    private val context = mockk<Context<Deployment>> { every { isPrimaryResourceDeleted } returns false }

    /** An opted-out Deployment whose template still has the gate and label danki applied in template mode. */
    private val optedOut =
        DeploymentBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web")
            .withUid("uid-web")
            .addToManagedFields(
                ManagedFieldsEntryBuilder()
                    .withManager(Keys.FIELD_MANAGER)
                    .withOperation("Apply")
                    .withNewFieldsV1()
                    .addToAdditionalProperties(
                        "f:spec",
                        mapOf("f:template" to mapOf("f:spec" to mapOf("f:readinessGates" to emptyMap<String, Any>()))),
                    ).endFieldsV1()
                    .build(),
            ).endMetadata()
            .withNewSpec()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE)
            .endMetadata()
            .withNewSpec()
            .addNewReadinessGate(Keys.GATE_CONDITION)
            .endSpec()
            .endTemplate()
            .endSpec()
            .build()

    private fun reconciler(patchTemplate: Boolean, stripTemplateGates: Boolean) =
        DeploymentReconciler(
            template,
            events,
            WarmupMetrics(),
            PlanParser(FailurePolicy.OPEN),
            patchTemplate = patchTemplate,
            stripTemplateGates = stripTemplateGates,
            namespaceOptIn = false,
            caches = mockk(relaxed = true),
        )

    @Test
    fun `webhook mode leaves a gate template mode wrote, with a Warning that says how to take it off`() {
        reconciler(patchTemplate = false, stripTemplateGates = false).reconcile(optedOut, context)
        verify(exactly = 0) { template.apply(any(), TemplateGate.Change.REMOVE) }
        val howTo = "install with webhook.stripTemplateGates=true"
        verify { events.warningOnce(optedOut, Keys.EventReasons.TEMPLATE_GATE_LEFT, match { howTo in it }) }
    }

    @Test
    fun `webhook mode with stripTemplateGates takes that gate off`() {
        reconciler(patchTemplate = false, stripTemplateGates = true).reconcile(optedOut, context)
        verify { template.apply(optedOut, TemplateGate.Change.REMOVE) }
        verify(exactly = 0) { events.warningOnce(any(), Keys.EventReasons.TEMPLATE_GATE_LEFT, any()) }
    }

    @Test
    fun `template mode takes its own gate off on opt-out`() {
        reconciler(patchTemplate = true, stripTemplateGates = true).reconcile(optedOut, context)
        verify { template.apply(optedOut, TemplateGate.Change.REMOVE) }
    }
}
