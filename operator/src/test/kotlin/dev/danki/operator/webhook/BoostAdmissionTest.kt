package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.aot.AotFixtures
import dev.danki.operator.aot.AotInjection
import dev.danki.operator.aot.JvmOptions
import dev.danki.operator.boost.DeclaredCpu
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanParser
import io.fabric8.kubernetes.api.model.EnvFromSource
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.EnvVarBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.zjsonpatch.JsonPatch
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

/**
 * The CPU boost from admission: what the webhook writes into a pod being created, checked by applying
 * its JSON Patch to the pod as the API server would.
 */
class BoostAdmissionTest {
    private val admission = BoostAdmission(PlanParser(FailurePolicy.OPEN))
    private val json = ObjectMapper()

    private fun deployment(boost: String? = "2"): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("shop")
            .addToAnnotations(Keys.Annotations.WARMUP, "enabled")
            .apply { boost?.let { addToAnnotations(Keys.Annotations.WARMUP_CPU, it) } }
            .endMetadata()
            .build()

    /** A pod of two containers, the warmed one serving 8080; [guaranteed]: requests equal to limits. */
    private fun pod(
        cpuLimit: String? = "500m",
        guaranteed: Boolean = false,
        annotations: Map<String, String>? = null,
    ): Pod =
        PodBuilder()
            .withNewMetadata()
            .withGenerateName("exam-abc-")
            .withAnnotations<String, String>(annotations)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("sidecar")
            .withNewResources()
            .addToLimits(mapOf("cpu" to Quantity("100m"), "memory" to Quantity("64Mi")))
            .addToRequests(mapOf("cpu" to Quantity("100m"), "memory" to Quantity("64Mi")))
            .endResources()
            .endContainer()
            .addNewContainer()
            .withName("app")
            .addNewPort()
            .withContainerPort(8080)
            .endPort()
            .withNewResources()
            .addToLimits(listOfNotNull(cpuLimit?.let { "cpu" to Quantity(it) }, "memory" to Quantity("1Gi")).toMap())
            .addToRequests(
                mapOf(
                    "cpu" to Quantity(if (guaranteed) cpuLimit else "250m"),
                    "memory" to Quantity("1Gi"),
                ),
            ).endResources()
            .endContainer()
            .endSpec()
            .build()

    /** [pod] after the API server applied [ops]. */
    private fun patched(pod: Pod, ops: List<Map<String, Any>>): Pod {
        val node = JsonPatch.apply(json.valueToTree(ops), json.valueToTree(pod))
        return json.treeToValue(node, Pod::class.java)
    }

    /** The warmed container's CPU [what] ("limit" or "request"). */
    private fun cpuOf(pod: Pod, what: String): Quantity? {
        val resources = pod.spec.containers[1].resources
        return (if (what == "limit") resources.limits else resources.requests)["cpu"]
    }

    @Test
    fun `a Burstable pod's warmed container gets the boost as its limit, and its declared CPU on the pod`() {
        val pod = pod()
        val result = admission.patchFor(pod, deployment())
        val admitted = patched(pod, result.ops)
        cpuOf(admitted, "limit") shouldBe Quantity("2")
        // only the limit: a request raised with it would ask the scheduler for the boost
        cpuOf(admitted, "request") shouldBe Quantity("250m")
        admitted.spec.containers[0]
            .resources.limits["cpu"] shouldBe Quantity("100m")
        DeclaredCpu.of(admitted) shouldBe DeclaredCpu("app", 500, null)
    }

    @Test
    fun `a Guaranteed pod's request moves with its limit, so its QoS class stays`() {
        val pod = pod(guaranteed = true)
        val admitted = patched(pod, admission.patchFor(pod, deployment()).ops)
        cpuOf(admitted, "limit") shouldBe Quantity("2")
        cpuOf(admitted, "request") shouldBe Quantity("2")
        DeclaredCpu.of(admitted) shouldBe DeclaredCpu("app", 500, 500)
    }

    @Test
    fun `a declared CPU the pod came with is written over, so that only the webhook's is restored`() {
        val forged = mapOf(Keys.DECLARED_CPU_ANNOTATION to """{"container":"app","limit":"16"}""", "team" to "exams")
        val pod = pod(annotations = forged)
        val admitted = patched(pod, admission.patchFor(pod, deployment()).ops)
        DeclaredCpu.of(admitted) shouldBe DeclaredCpu("app", 500, null)
        admitted.metadata.annotations["team"] shouldBe "exams"
    }

    @Test
    fun `no boost without one asked for, without a CPU limit, at or above it, or with a pod-level limit`() {
        admission.patchFor(pod(), deployment(boost = null)).ops.shouldBeEmpty()
        admission.patchFor(pod(), deployment(boost = "lots")).ops.shouldBeEmpty()
        admission.patchFor(pod(cpuLimit = null), deployment()).ops.shouldBeEmpty()
        admission.patchFor(pod(cpuLimit = "2"), deployment()).ops.shouldBeEmpty()
        val podLevel =
            pod().apply {
                spec.resources =
                    ResourceRequirementsBuilder().addToLimits("cpu", Quantity("1")).build()
            }
        admission.patchFor(podLevel, deployment()).ops.shouldBeEmpty()
    }

    @Test
    fun `the pod it hands on carries the annotation, for the patches after it`() {
        val result = admission.patchFor(pod(annotations = null), deployment())
        DeclaredCpu.of(result.pod) shouldBe DeclaredCpu("app", 500, null)
    }

    private val withProcessors = BoostAdmission(PlanParser(FailurePolicy.OPEN), activeProcessors = true)

    private fun envOf(pod: Pod): Map<String, String?> =
        pod.spec.containers[1]
            .env
            .orEmpty()
            .associate { it.name to it.value }

    @Test
    fun `the boosted JVM is told its declared CPU, rounded up, so its threads fit the CPU it keeps`() {
        val pod = pod(cpuLimit = "1500m")
        val admitted = patched(pod, withProcessors.patchFor(pod, deployment(boost = "4")).ops)
        envOf(admitted) shouldBe mapOf(JvmOptions.LAUNCHER_OPTIONS to "-XX:ActiveProcessorCount=2")
        cpuOf(admitted, "limit") shouldBe Quantity("4")
        // the sidecar's environment is not the JVM's
        admitted.spec.containers[0]
            .env
            .shouldBeEmpty()
    }

    @Test
    fun `the option is added to the user's own JAVA_TOOL_OPTIONS, and the pod handed on carries it for the cache`() {
        val pod = pod().apply { spec.containers[1].env = listOf(EnvVar("JAVA_TOOL_OPTIONS", "-Xss512k", null)) }
        val result = withProcessors.patchFor(pod, deployment())
        envOf(patched(pod, result.ops)) shouldBe mapOf("JAVA_TOOL_OPTIONS" to "-Xss512k -XX:ActiveProcessorCount=1")
        envOf(result.pod) shouldBe mapOf("JAVA_TOOL_OPTIONS" to "-Xss512k -XX:ActiveProcessorCount=1")
    }

    @Test
    fun `the user's own ActiveProcessorCount wins, and a value from a reference or envFrom is left alone`() {
        val option = EnvVar("JDK_JAVA_OPTIONS", "-XX:ActiveProcessorCount=8", null)
        val own = pod().apply { spec.containers[1].env = listOf(option) }
        envOf(patched(own, withProcessors.patchFor(own, deployment()).ops)) shouldBe
            mapOf("JDK_JAVA_OPTIONS" to "-XX:ActiveProcessorCount=8")
        val fromSecret =
            pod().apply {
                spec.containers[1].env =
                    listOf(
                        EnvVarBuilder()
                            .withName("JAVA_TOOL_OPTIONS")
                            .withNewValueFrom()
                            .withNewConfigMapKeyRef("opts", "jvm", false)
                            .endValueFrom()
                            .build(),
                    )
            }
        val fromRef = patched(fromSecret, withProcessors.patchFor(fromSecret, deployment()).ops)
        fromRef.spec.containers[1].env shouldBe fromSecret.spec.containers[1].env
        cpuOf(fromRef, "limit") shouldBe Quantity("2")
        val withEnvFrom = pod().apply { spec.containers[1].envFrom = listOf(EnvFromSource(null, "cfg", null)) }
        val admitted = patched(withEnvFrom, withProcessors.patchFor(withEnvFrom, deployment()).ops)
        admitted.spec.containers[1]
            .env
            .orEmpty()
            .shouldBeEmpty()
        cpuOf(admitted, "limit") shouldBe Quantity("2")
    }

    @Test
    fun `envFrom beside only _JAVA_OPTIONS leaves the env alone too, as JvmOptions would refuse it`() {
        val pod =
            pod().apply {
                spec.containers[1].env = listOf(EnvVar("_JAVA_OPTIONS", "-Xss512k", null))
                spec.containers[1].envFrom = listOf(EnvFromSource(null, "cfg", null))
            }
        val admitted = patched(pod, withProcessors.patchFor(pod, deployment()).ops)
        envOf(admitted) shouldBe mapOf("_JAVA_OPTIONS" to "-Xss512k")
        cpuOf(admitted, "limit") shouldBe Quantity("2")
    }

    @Test
    fun `off, the environment is left as it is`() {
        val pod = pod()
        patched(pod, admission.patchFor(pod, deployment()).ops)
            .spec.containers[1]
            .env
            .orEmpty()
            .shouldBeEmpty()
    }

    @Test
    fun `with the AOT cache after it, the container's options carry both, as the last writer of its env`() {
        val pod =
            AotFixtures.pod(
                AotFixtures
                    .app()
                    .withNewResources()
                    .addToLimits("cpu", Quantity("500m"))
                    .endResources()
                    .build(),
            )
        val deployment = AotFixtures.deployment().apply { metadata.annotations[Keys.Annotations.WARMUP_CPU] = "2" }
        val boost = withProcessors.patchFor(pod, deployment)
        val cache = AotInjection.patchFor(boost.pod, deployment, AotFixtures.cache(), AotFixtures.RUNNER)
        val admitted = patched(pod, boost.ops + cache.ops)
        admitted.spec.containers[0]
            .env
            .associate { it.name to it.value } shouldBe
            mapOf(JvmOptions.LAUNCHER_OPTIONS to "-XX:ActiveProcessorCount=1 ${AotInjection.OPTION}")
        admitted.spec.containers[0]
            .resources.limits["cpu"] shouldBe Quantity("2")
    }
}
