package dev.danki.operator.testkit

import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * The objects the ITs (test API server) and the E2E (local cluster) both build and read: one place,
 * so that a sample Deployment means the same in both.
 */
object Manifests {
    const val SAMPLE_IMAGE = "danki/sample-service:dev"

    fun namespace(name: String): Namespace =
        NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build()

    /** A Deployment of one container `app` selected by `app=<name>`, with [port] named `http`. */
    @Suppress("LongParameterList") // each is a knob one test or another turns
    fun deployment(
        namespace: String,
        name: String,
        annotations: Map<String, String>,
        port: Int = 8080,
        replicas: Int? = null,
        image: String = SAMPLE_IMAGE,
        env: Map<String, String> = emptyMap(),
        templateLabels: Map<String, String> = emptyMap(),
        readinessGates: List<String> = emptyList(),
        /** A readiness probe on GET /readyz: ContainersReady then means the JVM listens. */
        probe: Boolean = false,
    ): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withAnnotations<String, String>(annotations)
            .endMetadata()
            .withNewSpec()
            .withReplicas(replicas)
            .withNewSelector()
            .addToMatchLabels("app", name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", name)
            .addToLabels(templateLabels)
            .endMetadata()
            .withNewSpec()
            .apply { readinessGates.forEach { addNewReadinessGate(it) } }
            .addNewContainer()
            .withName("app")
            .withImage(image)
            .addNewPort()
            .withName("http")
            .withContainerPort(port)
            .endPort()
            .apply { env.forEach { (k, v) -> addNewEnv().withName(k).withValue(v).endEnv() } }
            .apply {
                if (probe) {
                    withNewReadinessProbe()
                        .withNewHttpGet()
                        .withPath("/readyz")
                        .withNewPort(port)
                        .endHttpGet()
                        .withPeriodSeconds(1)
                        .endReadinessProbe()
                }
            }.endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build()

    /** Every Event in [namespace]. */
    fun events(client: KubernetesClient, namespace: String): List<Event> =
        client
            .v1()
            .events()
            .inNamespace(namespace)
            .list()
            .items
}
