package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.Taint
import io.fabric8.kubernetes.api.model.Toleration
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class BoostCeilingTest {
    private fun node(
        name: String,
        cpu: String?,
        labels: Map<String, String> = emptyMap(),
        taint: Taint? = null,
        cordoned: Boolean = false,
    ): Node =
        NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels<String, String>(labels)
            .endMetadata()
            .withNewSpec()
            .withUnschedulable(cordoned)
            .withTaints(listOfNotNull(taint))
            .endSpec()
            .withNewStatus()
            .apply { cpu?.let { addToAllocatable("cpu", Quantity(it)) } }
            .endStatus()
            .build()

    private fun pod(
        selector: Map<String, String> = emptyMap(),
        tolerations: List<Toleration> = emptyList(),
        nodeName: String? = null,
    ): Pod =
        PodBuilder()
            .withNewSpec()
            .withNodeSelector<String, String>(selector)
            .withTolerations(tolerations)
            .withNodeName(nodeName)
            .endSpec()
            .build()

    private val system = Taint("NoSchedule", "role", null, "system")
    private val nodes =
        listOf(
            node("worker-1", "350m", mapOf("role" to "worker")),
            node("worker-2", "2", mapOf("role" to "worker")),
            node("system", "8", mapOf("role" to "system"), system),
            node("cordoned", "16", mapOf("role" to "worker"), cordoned = true),
            node("soft", "12", mapOf("role" to "soft"), Taint("PreferNoSchedule", "role", null, "soft")),
        )

    @Test
    fun `the largest node the pod may be scheduled on, cordoned and untolerated tainted ones left out`() {
        BoostCeiling.millisFor(pod(), nodes) shouldBe 12_000
        BoostCeiling.millisFor(pod(mapOf("role" to "worker")), nodes) shouldBe 2_000
    }

    @Test
    fun `a toleration of the taint lets the node count, as Kubernetes matches it`() {
        val exact = Toleration("NoSchedule", "role", "Equal", null, "system")
        val anyValue = Toleration(null, "role", "Exists", null, null)
        val other = Toleration("NoSchedule", "role", "Equal", null, "gpu")
        BoostCeiling.millisFor(pod(mapOf("role" to "system"), listOf(exact)), nodes) shouldBe 8_000
        BoostCeiling.millisFor(pod(mapOf("role" to "system"), listOf(anyValue)), nodes) shouldBe 8_000
        BoostCeiling.millisFor(pod(mapOf("role" to "system"), listOf(other)), nodes) shouldBe null
    }

    @Test
    fun `a scheduled pod's own node, and nothing known is null`() {
        BoostCeiling.millisFor(pod(nodeName = "worker-1"), nodes) shouldBe 350
        BoostCeiling.millisFor(pod(nodeName = "gone"), nodes) shouldBe null
        BoostCeiling.millisFor(pod(), emptyList()) shouldBe null
        BoostCeiling.millisFor(pod(), listOf(node("bare", null))) shouldBe null
    }
}
