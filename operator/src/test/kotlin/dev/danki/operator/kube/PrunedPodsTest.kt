package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class PrunedPodsTest {
    @Test
    fun `a pod is kept without its managedFields, and everything else as it came`() {
        val pod =
            PodBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web-1")
                .withResourceVersion("42")
                .addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE)
                .addToManagedFields(ManagedFieldsEntryBuilder().withManager("kubelet").withOperation("Update").build())
                .endMetadata()
                .withNewSpec()
                .addNewReadinessGate(Keys.GATE_CONDITION)
                .endSpec()
                .build()
        val store = PrunedPods()
        store.put(store.getKey(pod), pod)
        val kept = store.get("shop/web-1")!!
        kept.metadata.managedFields shouldBe null
        kept.metadata.resourceVersion shouldBe "42"
        kept.metadata.labels[Keys.WARMUP_LABEL] shouldBe Keys.WARMUP_LABEL_VALUE
        kept.spec.readinessGates
            .single()
            .conditionType shouldBe Keys.GATE_CONDITION
        store.size() shouldBe 1
        store.remove("shop/web-1")
        store.size() shouldBe 0
    }
}
