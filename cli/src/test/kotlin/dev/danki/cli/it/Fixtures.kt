package dev.danki.cli.it

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import java.util.UUID

/** Test objects built with fabric8 builders, each test in its own namespace. */
object Fixtures {
    fun namespace(client: KubernetesClient): String {
        val name = "cli-" + UUID.randomUUID().toString().take(8)
        client
            .namespaces()
            .resource(
                NamespaceBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .build(),
            ).create()
        return name
    }

    fun deployment(
        namespace: String,
        name: String,
        optedIn: Boolean = true,
        replicas: Int = 1,
        cpu: String = "100m",
    ): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .addToAnnotations(if (optedIn) mapOf(Keys.Annotations.WARMUP to Keys.Annotations.ENABLED) else emptyMap())
            .endMetadata()
            .withNewSpec()
            .withReplicas(replicas)
            .withNewSelector()
            .addToMatchLabels("app", name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", name)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("danki/sample-service:dev")
            .withNewResources()
            .addToRequests("cpu", Quantity(cpu))
            .endResources()
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build()
}
