package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

/** A claim's event reconciles the Deployment whose cache it stores, and no other. */
class ClaimOwnerTest {
    private fun claim(
        kind: String = Keys.AOT_CACHE_KIND,
        apiVersion: String = Keys.API_VERSION,
        controller: Boolean? = true,
    ): PersistentVolumeClaim =
        PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName("danki-aot-exam")
            .withNamespace("team")
            .addNewOwnerReference()
            .withKind(kind)
            .withApiVersion(apiVersion)
            .withName("exam")
            .withController(controller)
            .endOwnerReference()
            .endMetadata()
            .build()

    @Test
    fun `a claim maps to its AotCache's Deployment, in its namespace`() {
        Caches.deploymentOfClaim(claim()) shouldBe ResourceID("exam", "team")
    }

    @Test
    fun `a claim not controlled by danki's AotCache maps to none`() {
        Caches.deploymentOfClaim(claim(kind = "StatefulSet", apiVersion = "apps/v1")) shouldBe null
        Caches.deploymentOfClaim(claim(apiVersion = "other.example/v1")) shouldBe null
        Caches.deploymentOfClaim(claim(controller = null)) shouldBe null
        Caches.deploymentOfClaim(
            PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName("x")
                .endMetadata()
                .build(),
        ) shouldBe
            null
    }
}
