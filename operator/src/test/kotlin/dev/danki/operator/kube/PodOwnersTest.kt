package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class PodOwnersTest {
    private fun pod(owner: String?, hash: String?): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("p")
            .apply { if (hash != null) addToLabels(Keys.POD_TEMPLATE_HASH, hash) }
            .apply {
                if (owner != null) {
                    addNewOwnerReference()
                        .withKind("ReplicaSet")
                        .withName(owner)
                        .withController(true)
                        .endOwnerReference()
                }
            }.endMetadata()
            .build()

    @Test
    fun `the deployment is the replica set name without the template hash`() {
        PodOwners.deploymentOf(pod("exam-warm-7d9f8c6b5", "7d9f8c6b5")) shouldBe "exam-warm"
    }

    @Test
    fun `pods not from a deployment have none`() {
        PodOwners.deploymentOf(pod(null, "x")) shouldBe null
        PodOwners.deploymentOf(pod("rs-abc", null)) shouldBe null
        PodOwners.deploymentOf(pod("custom-rs", "7d9f8c6b5")) shouldBe null
    }
}
