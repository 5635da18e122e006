package dev.danki.operator.runner

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Owners
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.ScriptRef
import dev.danki.operator.warmup.TargetPod
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.ObjectMeta
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirements
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.fabric8.kubernetes.api.model.Volume
import io.fabric8.kubernetes.api.model.VolumeBuilder
import io.fabric8.kubernetes.api.model.VolumeMountBuilder
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder
import java.security.MessageDigest
import java.time.Duration

/**
 * The runner pod of one custom-flow attempt, and the NetworkPolicy that fences it: made of the
 * request alone, so what a tenant's script can reach and read is decided in one place.
 *
 * The pod has no service-account token, runs as a non-root user with a read-only root filesystem and
 * no capabilities, ends at the warm-up's deadline (`activeDeadlineSeconds`), and sees only the
 * tenant's ConfigMap (the flow), optionally its Secret, and a small scratch directory. Its policy
 * admits no traffic in and lets traffic out only to the pod being warmed.
 */
object RunnerPodSpec {
    const val FLOW_DIR = "/var/run/danki/flow"
    const val SECRET_DIR = "/var/run/danki/secret"
    const val CONTAINER = "k6"
    private const val GRACE_SECONDS = 5L
    private const val HASH_LENGTH = 10
    private const val TMP_LIMIT = "64Mi"

    /** The default resources of a runner: k6 with a few flows in flight needs little. */
    val DEFAULT_RESOURCES: ResourceRequirements =
        ResourceRequirementsBuilder()
            .addToRequests("cpu", Quantity("100m"))
            .addToRequests("memory", Quantity("128Mi"))
            .addToLimits("memory", Quantity("512Mi"))
            .build()

    /** Resources from the chart's JSON (checked at start-up by ConfigLoader). */
    fun resourcesOf(json: String): ResourceRequirements =
        com.fasterxml.jackson.databind
            .ObjectMapper()
            .readValue(json, ResourceRequirements::class.java)

    /** `danki-runner-<hash>`: one name per run, so a new leader finds (and replaces) its predecessor's. */
    fun nameOf(runKey: String): String {
        val digest = MessageDigest.getInstance("SHA-256").digest(runKey.toByteArray())
        return "danki-runner-" + digest.joinToString("") { "%02x".format(it) }.take(HASH_LENGTH)
    }

    fun pod(
        request: K6Request,
        script: ScriptRef,
        image: String,
        resources: ResourceRequirements,
        deadlineIn: Duration,
        environment: Map<String, String>,
    ): Pod {
        val target = request.target ?: error("a runner pod needs its target pod")
        val name = nameOf(request.runName)
        return PodBuilder()
            .withMetadata(metadata(target, name, mapOf(Keys.RunnerLabels.FOR_POD to target.name)))
            .withNewSpec()
            .withRestartPolicy("Never")
            .withActiveDeadlineSeconds(deadlineIn.seconds.coerceAtLeast(1))
            .withTerminationGracePeriodSeconds(GRACE_SECONDS)
            // no token, no Service variables: nothing that names or reaches the cluster's API
            .withAutomountServiceAccountToken(false)
            .withEnableServiceLinks(false)
            .withSecurityContext(Hardening.pod())
            .withContainers(container(script, image, resources, environment))
            .withVolumes(volumes(script))
            .endSpec()
            .build()
    }

    private fun container(
        script: ScriptRef,
        image: String,
        resources: ResourceRequirements,
        environment: Map<String, String>,
    ): Container {
        val mounts =
            listOfNotNull(
                VolumeMountBuilder()
                    .withName("flow")
                    .withMountPath(FLOW_DIR)
                    .withReadOnly(true)
                    .build(),
                VolumeMountBuilder().withName("tmp").withMountPath("/tmp").build(),
                script.secret?.let {
                    VolumeMountBuilder()
                        .withName("secret")
                        .withMountPath(SECRET_DIR)
                        .withReadOnly(true)
                        .build()
                },
            )
        return ContainerBuilder()
            .withName(CONTAINER)
            .withImage(image)
            .withEnv(environment.map { (k, v) -> EnvVar(k, v, null) })
            .withResources(resources)
            .withTerminationMessagePath("/dev/termination-log")
            .withTerminationMessagePolicy("File")
            .withSecurityContext(Hardening.container())
            .withVolumeMounts(mounts)
            .build()
    }

    private fun volumes(script: ScriptRef): List<Volume> =
        listOfNotNull(
            VolumeBuilder()
                .withName("flow")
                .withNewConfigMap()
                .withName(script.configMap)
                .endConfigMap()
                .build(),
            VolumeBuilder()
                .withName("tmp")
                .withNewEmptyDir()
                .withSizeLimit(Quantity(TMP_LIMIT))
                .endEmptyDir()
                .build(),
            script.secret?.let {
                VolumeBuilder()
                    .withName("secret")
                    .withNewSecret()
                    .withSecretName(it)
                    .endSecret()
                    .build()
            },
        )

    /** No traffic in; out only to the pod being warmed, on any of its ports (its flow may use several). */
    fun networkPolicy(request: K6Request): NetworkPolicy {
        val target = request.target ?: error("a runner pod needs its target pod")
        val name = nameOf(request.runName)
        return NetworkPolicyBuilder()
            .withMetadata(metadata(target, name))
            .withNewSpec()
            .withNewPodSelector()
            .withMatchLabels<String, String>(mapOf(Keys.RunnerLabels.RUNNER to name))
            .endPodSelector()
            .withPolicyTypes("Ingress", "Egress")
            .addNewEgress()
            .addNewTo()
            .withNewIpBlock()
            .withCidr(cidrOf(target.ip))
            .endIpBlock()
            .endTo()
            .endEgress()
            .endSpec()
            .build()
    }

    private fun cidrOf(ip: String) = if (ip.contains(':')) "$ip/128" else "$ip/32"

    /** The runner's name, labels and owner, shared by its pod and its NetworkPolicy. */
    private fun metadata(target: TargetPod, name: String, annotations: Map<String, String> = emptyMap()): ObjectMeta =
        ObjectMetaBuilder()
            .withName(name)
            .withNamespace(target.namespace)
            .withLabels<String, String>(labels(name))
            .apply { if (annotations.isNotEmpty()) withAnnotations<String, String>(annotations) }
            // owned by the warmed pod: whatever a lost operator leaves behind goes with that pod
            .withOwnerReferences(Owners.of("v1", "Pod", target.name, target.uid, controller = false))
            .build()

    private fun labels(name: String) =
        mapOf(
            Keys.RunnerLabels.RUNNER to name,
            Keys.MANAGED_BY_LABEL to Keys.FIELD_MANAGER,
            "app.kubernetes.io/component" to "warmup-runner",
        )
}
