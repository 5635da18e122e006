package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class PodMutationTest {
    private fun deployment(warmup: String?): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("n")
            .apply { if (warmup != null) addToAnnotations(Keys.Annotations.WARMUP, warmup) }
            .endMetadata()
            .build()

    private fun pod(gates: List<String> = emptyList(), labels: Map<String, String>? = mapOf("app" to "exam")): Pod =
        PodBuilder()
            .withNewMetadata()
            .withGenerateName("exam-abc-")
            .withLabels<String, String>(labels)
            .endMetadata()
            .withNewSpec()
            .apply { gates.forEach { addNewReadinessGate(it) } }
            .endSpec()
            .build()
            .also { if (labels == null) it.metadata.labels = null }

    private val gate = mapOf("conditionType" to Keys.GATE_CONDITION)

    @Test
    fun `a pod of an opted-in Deployment gets the gate and the label`() {
        PodMutation.patchFor(pod(), deployment("enabled")) shouldBe
            listOf(
                mapOf("op" to "add", "path" to "/spec/readinessGates", "value" to listOf(gate)),
                mapOf("op" to "add", "path" to "/metadata/labels/danki.dev~1warmup", "value" to "enabled"),
            )
    }

    @Test
    fun `the user's own gates are kept and danki's is appended`() {
        PodMutation.patchFor(pod(gates = listOf("example.com/ready")), deployment("enabled")).first() shouldBe
            mapOf("op" to "add", "path" to "/spec/readinessGates/-", "value" to gate)
    }

    @Test
    fun `a pod without labels gets the labels map`() {
        PodMutation.patchFor(pod(labels = null), deployment("enabled")).last() shouldBe
            mapOf("op" to "add", "path" to "/metadata/labels", "value" to mapOf(Keys.WARMUP_LABEL to "enabled"))
    }

    @Test
    fun `nothing for a Deployment not opted in, opted out, misspelt or unknown`() {
        PodMutation.patchFor(pod(), deployment(null)).shouldBeEmpty()
        PodMutation.patchFor(pod(), deployment("disabled")).shouldBeEmpty()
        PodMutation.patchFor(pod(), deployment("enabeld")).shouldBeEmpty()
        PodMutation.patchFor(pod(), null).shouldBeEmpty()
    }

    @Test
    fun `a pod its template gated gets only the label, whatever its Deployment says, so that danki sees it`() {
        val label = mapOf("op" to "add", "path" to "/metadata/labels/danki.dev~1warmup", "value" to "enabled")
        val gated = pod(gates = listOf(Keys.GATE_CONDITION))
        for (deployment in listOf(deployment("enabled"), deployment("disabled"), deployment(null), null)) {
            PodMutation.patchFor(gated, deployment) shouldBe listOf(label)
        }
        val labelled = pod(gates = listOf(Keys.GATE_CONDITION), labels = mapOf(Keys.WARMUP_LABEL to "enabled"))
        PodMutation.patchFor(labelled, deployment("enabled")).shouldBeEmpty()
    }

    @Test
    fun `a pod of a Deployment in an opted-in namespace is gated unless the Deployment opts out`() {
        val optedIn = mapOf(Keys.NAMESPACE_OPT_IN_LABEL to "enabled")
        PodMutation.patchFor(pod(), deployment(null), optedIn).size shouldBe 2
        PodMutation.patchFor(pod(), deployment("disabled"), optedIn).shouldBeEmpty()
        PodMutation.patchFor(pod(), null, optedIn).shouldBeEmpty()
    }
}
