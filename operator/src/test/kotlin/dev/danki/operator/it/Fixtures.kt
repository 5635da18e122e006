package dev.danki.operator.it

import dev.danki.operator.kube.Keys
import dev.danki.operator.testkit.Manifests
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import java.time.Instant
import java.time.temporal.ChronoUnit

/** fabric8 builders for the objects a real cluster would make: no controller-manager or kubelet runs here. */
object Fixtures {
    /** Small passes, so a warm-up against a loopback target takes seconds. */
    val FAST_PLAN =
        mapOf(
            Keys.Annotations.WARMUP to "enabled",
            Keys.Annotations.REQUESTS to "20",
            Keys.Annotations.RATE to "50",
            Keys.Annotations.WARMUP_RATE to "200",
            Keys.Annotations.MAX_WARMUP_REQUESTS to "400",
            Keys.Annotations.TIMEOUT to "40s",
        )

    fun namespace(client: KubernetesClient, name: String) {
        client.namespaces().resource(Manifests.namespace(name)).create()
        // the ServiceAccount admission plugin wants it; the missing controller-manager would make it
        client
            .serviceAccounts()
            .inNamespace(name)
            .resource(
                ServiceAccountBuilder()
                    .withNewMetadata()
                    .withName("default")
                    .endMetadata()
                    .build(),
            ).create()
    }

    fun deployment(
        namespace: String,
        name: String,
        annotations: Map<String, String>,
        port: Int = 8080,
        userGate: Boolean = false,
        otherGates: List<String> = emptyList(),
    ): Deployment =
        Manifests.deployment(
            namespace,
            name,
            annotations,
            port = port,
            // with the user's gate, danki's label beside it as docs/operator.md asks: opting in does not roll it
            templateLabels = if (userGate) mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE) else emptyMap(),
            readinessGates = otherGates + listOfNotNull(Keys.GATE_CONDITION.takeIf { userGate }),
        )

    /** A pod as the ReplicaSet `<deployment>-abc123` would create it, gated. */
    fun gatedPod(namespace: String, deployment: String, name: String, port: Int): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .addToLabels("app", deployment)
            .addToLabels(Keys.POD_TEMPLATE_HASH, HASH)
            // as the webhook or danki's template label writes it: the operator caches labelled pods only
            .addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE)
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("$deployment-$HASH")
            .withUid("00000000-0000-0000-0000-000000000001")
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("danki/sample-service:dev")
            .addNewPort()
            .withName("http")
            .withContainerPort(port)
            .endPort()
            .endContainer()
            .addNewReadinessGate(Keys.GATE_CONDITION)
            .endSpec()
            .build()

    /**
     * [gatedPod] as the webhook did not see it: without danki's label and, unless [gated] (its own
     * template's gate), without the gate. The operator's pod cache does not hold it.
     */
    fun unlabeledPod(namespace: String, deployment: String, name: String, port: Int, gated: Boolean = false): Pod =
        PodBuilder(gatedPod(namespace, deployment, name, port))
            .editMetadata()
            .removeFromLabels(Keys.WARMUP_LABEL)
            .endMetadata()
            .apply { if (!gated) editSpec().withReadinessGates().endSpec() }
            .build()

    /** Writes what a kubelet would: running, ContainersReady True, a pod IP, a restart count. */
    fun markReady(client: KubernetesClient, pod: Pod, ip: String, restarts: Int = 0) {
        val now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        val body =
            """
            {"status":{"phase":"Running","podIP":"$ip","podIPs":[{"ip":"$ip"}],
             "conditions":[{"type":"ContainersReady","status":"True","lastTransitionTime":"$now"}],
             "containerStatuses":[{"name":"app","ready":true,"restartCount":$restarts,"image":"danki/sample-service:dev",
               "imageID":"","state":{"running":{"startedAt":"$now"}}}]}}
            """.trimIndent()
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .withName(pod.metadata.name)
            .subresource("status")
            .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), body)
    }

    const val HASH = "abc123"
}
