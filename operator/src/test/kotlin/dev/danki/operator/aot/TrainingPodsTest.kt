package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheSpec
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration

class TrainingPodsTest {
    private val cache =
        AotCache().apply {
            metadata =
                ObjectMetaBuilder()
                    .withName("exam")
                    .withNamespace("n")
                    .withUid("u1")
                    .build()
            spec =
                AotCacheSpec().apply {
                    deployment = "exam"
                    claimName = "danki-aot-exam"
                }
        }

    private fun deployment(envFrom: Boolean = false): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("n")
            .endMetadata()
            .withNewSpec()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "exam")
            .endMetadata()
            .withNewSpec()
            .addNewReadinessGate(Keys.GATE_CONDITION)
            .addNewContainer()
            .withName("app")
            .withImage("exam:1")
            .addNewEnv()
            .withName("PORT")
            .withValue("8080")
            .endEnv()
            .apply { if (envFrom) addNewEnvFrom().withNewConfigMapRef("cfg", false).endEnvFrom() }
            .addNewPort()
            .withContainerPort(8080)
            .endPort()
            .withNewLivenessProbe()
            .withNewTcpSocket()
            .withNewPort(8080)
            .endTcpSocket()
            .endLivenessProbe()
            .withNewResources()
            .addToLimits("memory", Quantity("512Mi"))
            .endResources()
            .endContainer()
            .addNewContainer()
            .withName("sidecar")
            .withImage("proxy:1")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build()

    private val jvm = JvmContainer.of(deployment().spec.template.spec, null)!!

    @Test
    fun `the training pod is the template with the recording option, selected by nothing of the Deployment's`() {
        val pod = TrainingPods.training(deployment(), cache, jvm, Duration.ofMinutes(15))
        pod.metadata.labels shouldBe
            mapOf(
                Keys.Aot.TRAINING_LABEL to "true",
                "app.kubernetes.io/managed-by" to "danki",
                "app.kubernetes.io/component" to "aot-train",
            )
        pod.metadata.ownerReferences
            .single()
            .kind shouldBe "AotCache"
        (pod.metadata.name.length <= 63) shouldBe true
        val spec = pod.spec
        spec.restartPolicy shouldBe "Never"
        spec.readinessGates shouldBe emptyList()
        spec.activeDeadlineSeconds shouldBe 900L
        spec.terminationGracePeriodSeconds shouldBe 180L
        val app = spec.containers.first { it.name == "app" }
        app.env.last().name shouldBe "JDK_JAVA_OPTIONS"
        app.env.last().value shouldBe
            "-XX:AOTCacheOutput=${Keys.Aot.STORE_DIR}/${TrainingPods.trainingFile(jvm.codeFingerprint)}"
        app.livenessProbe shouldBe null
        app.resources.limits["memory"] shouldBe Quantity((1024L * 1024 * 1024).toString())
        app.volumeMounts.single().readOnly shouldBe false
        spec.volumes
            .single()
            .persistentVolumeClaim.claimName shouldBe "danki-aot-exam"
        spec.containers.first { it.name == "sidecar" }.env shouldBe emptyList()
    }

    @Test
    fun `the Deployment's own template is not changed by building the training pod`() {
        val d = deployment()
        TrainingPods.training(d, cache, jvm, Duration.ofMinutes(1))
        d.spec.template.spec.containers[0]
            .env.size shouldBe 1
        d.spec.template.spec.readinessGates.size shouldBe 1
    }

    @Test
    fun `a container whose options may come from envFrom is refused, with why`() {
        val e =
            shouldThrow<JvmOptions.Refused> {
                TrainingPods.training(deployment(envFrom = true), cache, jvm, Duration.ofMinutes(1))
            }
        e.reason.contains("envFrom") shouldBe true
    }

    @Test
    fun `the sealing pod runs danki's image without a token, as non-root, read-only, on the claim`() {
        val pod = TrainingPods.sealing(cache, jvm.codeFingerprint, "danki/k6-runner:1", "b".repeat(64))
        pod.spec.automountServiceAccountToken shouldBe false
        pod.spec.securityContext.runAsNonRoot shouldBe true
        val c = pod.spec.containers.single()
        c.image shouldBe "danki/k6-runner:1"
        c.securityContext.readOnlyRootFilesystem shouldBe true
        c.securityContext.capabilities.drop shouldBe listOf("ALL")
        c.env.associate { it.name to it.value } shouldBe
            mapOf(
                "STORE" to Keys.Aot.STORE_DIR,
                "SOURCE" to TrainingPods.trainingFile(jvm.codeFingerprint),
                "KEEP" to "b".repeat(64),
            )
    }

    @Test
    fun `only an exact sealed report is believed`() {
        val sha = "0123456789abcdef".repeat(4)
        TrainingPods.sealedOf("sealed $sha 70377472\n") shouldBe (sha to 70_377_472L)
        TrainingPods.sealedOf("sealed $sha") shouldBe null
        TrainingPods.sealedOf("sealed ${sha.uppercase()} 1") shouldBe null
        TrainingPods.sealedOf("the training JVM wrote no cache") shouldBe null
        TrainingPods.sealedOf(null) shouldBe null
    }

    @Test
    fun `the JVM container is the one serving the warm-up port, and its fingerprints follow image and options`() {
        JvmContainer.of(deployment().spec.template.spec, null)?.name shouldBe "app"
        val other =
            deployment().apply {
                spec.template.spec.containers[0]
                    .env[0]
                    .value = "9090"
            }
        JvmContainer.of(other.spec.template.spec, null)!!.optionsFingerprint shouldBe jvm.optionsFingerprint
        val withOptions =
            deployment().apply {
                val app = spec.template.spec.containers[0]
                app.env = app.env +
                    io.fabric8.kubernetes.api.model
                        .EnvVar("JAVA_TOOL_OPTIONS", "-Xmx1g", null)
            }
        val changed = JvmContainer.of(withOptions.spec.template.spec, null)!!
        changed.codeFingerprint shouldBe jvm.codeFingerprint
        (changed.optionsFingerprint == jvm.optionsFingerprint) shouldBe false
        val newImage =
            deployment().apply {
                spec.template.spec.containers[0]
                    .image = "exam:2"
            }
        (JvmContainer.of(newImage.spec.template.spec, null)!!.codeFingerprint == jvm.codeFingerprint) shouldBe false
    }
}
