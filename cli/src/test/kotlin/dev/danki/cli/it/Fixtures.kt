package dev.danki.cli.it

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.api.model.rbac.PolicyRule
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder
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

    /** A rule of [verb] on [resources] of [group] (`""` is the core group). */
    fun rule(group: String, verb: String, vararg resources: String): PolicyRule =
        PolicyRuleBuilder()
            .withApiGroups(group)
            .withResources(*resources)
            .withVerbs(verb)
            .build()

    /** Lets [user] do exactly [rules] in [namespace] (a Role and its RoleBinding, both named after the user). */
    fun grant(client: KubernetesClient, namespace: String, user: String, vararg rules: PolicyRule) {
        client
            .resource(
                RoleBuilder()
                    .withNewMetadata()
                    .withName(user)
                    .withNamespace(namespace)
                    .endMetadata()
                    .withRules(*rules)
                    .build(),
            ).create()
        client
            .resource(
                RoleBindingBuilder()
                    .withNewMetadata()
                    .withName(user)
                    .withNamespace(namespace)
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "Role", user)
                    .addNewSubject()
                    .withKind("User")
                    .withName(user)
                    .withApiGroup("rbac.authorization.k8s.io")
                    .endSubject()
                    .build(),
            ).create()
    }
}
