package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheSpec
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder

/** A Deployment `shop/exam` with its cache trained on the `app` container: the AOT tests' world. */
object AotFixtures {
    const val SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    const val FILE = "cache/$SHA.aot"
    const val RUNNER = "danki/operator:1.2.3"

    fun app(image: String = "exam:1"): ContainerBuilder =
        ContainerBuilder()
            .withName("app")
            .withImage(image)
            .withArgs("--serve")
            .addNewPort()
            .withContainerPort(8080)
            .endPort()

    fun deployment(aot: String? = "enabled", port: String? = null): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("shop")
            .addToAnnotations(Keys.Annotations.WARMUP, "enabled")
            .apply { if (aot != null) addToAnnotations(Keys.Annotations.AOT_CACHE, aot) }
            .apply { if (port != null) addToAnnotations(Keys.Annotations.PORT, port) }
            .endMetadata()
            .build()

    fun pod(vararg containers: Container = arrayOf(app().build())): Pod =
        PodBuilder()
            .withNewMetadata()
            .withGenerateName("exam-5d8f-")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .withContainers(*containers)
            .endSpec()
            .build()

    /** The cache as the training leaves it, trained on [trainedOn]. */
    fun cache(
        trainedOn: Container = app().build(),
        sha256: String? = SHA,
        file: String? = FILE,
        claimName: String? = "danki-aot-exam",
        sizeBytes: Long? = 1_000_000_000,
    ): AotCache =
        AotCache().apply {
            metadata.name = "exam"
            metadata.namespace = "shop"
            spec =
                AotCacheSpec().apply {
                    deployment = "exam"
                    this.claimName = claimName
                }
            status =
                AotCacheStatus().apply {
                    phase = AotCache.PHASE_READY
                    this.sha256 = sha256
                    this.file = file
                    this.sizeBytes = sizeBytes
                    container = trainedOn.name
                    codeFingerprint = JvmContainer.of(trainedOn).codeFingerprint
                }
        }
}
