package dev.danki.operator.gate

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.ServerSideApply
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Puts the `danki.dev/warmup` label and the `danki.dev/warmed` readiness gate on a Deployment's pod
 * template with server-side apply (field manager `danki`), and takes them off again by applying an
 * empty configuration, which drops exactly the fields danki owns.
 */
class TemplateGate(
    private val client: KubernetesClient,
) {
    private val json = ObjectMapper()

    /** What a Deployment's template needs from danki right now. */
    enum class Change { NONE, ADD, REMOVE }

    fun changeFor(
        deployment: Deployment,
        optedIn: Boolean,
    ): Change =
        when {
            // a template that already carries the gate (danki's or the user's) needs no patch
            optedIn && !hasGate(deployment) -> Change.ADD

            !optedIn && managesTemplate(deployment) -> Change.REMOVE

            else -> Change.NONE
        }

    fun apply(
        deployment: Deployment,
        change: Change,
    ) {
        val body =
            when (change) {
                Change.NONE -> return
                Change.ADD -> addConfiguration(deployment)
                Change.REMOVE -> emptyConfiguration(deployment)
            }
        client
            .apps()
            .deployments()
            .inNamespace(deployment.metadata.namespace)
            .withName(deployment.metadata.name)
            .patch(ServerSideApply.CONTEXT, json.writeValueAsString(body))
    }

    private fun addConfiguration(deployment: Deployment): Map<String, Any> {
        // readinessGates is an atomic list: apply the user's gates too, so taking ownership keeps them
        val gates =
            deployment.spec
                ?.template
                ?.spec
                ?.readinessGates
                .orEmpty()
                .map { it.conditionType }
                .filter { it != Keys.GATE_CONDITION } + Keys.GATE_CONDITION
        return emptyConfiguration(deployment) +
            mapOf(
                "spec" to
                    mapOf(
                        "template" to
                            mapOf(
                                "metadata" to mapOf("labels" to mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE)),
                                "spec" to mapOf("readinessGates" to gates.map { mapOf("conditionType" to it) }),
                            ),
                    ),
            )
    }

    private fun emptyConfiguration(deployment: Deployment): Map<String, Any> =
        mapOf(
            "apiVersion" to "apps/v1",
            "kind" to "Deployment",
            "metadata" to mapOf("name" to deployment.metadata.name, "namespace" to deployment.metadata.namespace),
        )

    companion object {
        fun hasGate(deployment: Deployment) =
            deployment.spec
                ?.template
                ?.spec
                ?.readinessGates
                .orEmpty()
                .any { it.conditionType == Keys.GATE_CONDITION }

        fun hasLabel(deployment: Deployment) =
            deployment.spec
                ?.template
                ?.metadata
                ?.labels
                ?.get(Keys.WARMUP_LABEL) == Keys.WARMUP_LABEL_VALUE

        /** True when danki applied fields to this Deployment (its managedFields name manager `danki`). */
        fun managesTemplate(deployment: Deployment) =
            deployment.metadata.managedFields
                .orEmpty()
                .any { it.manager == Keys.FIELD_MANAGER && it.operation == "Apply" }

        /** A gate the user wrote into their own manifest, not one danki applied. */
        fun hasUserGate(deployment: Deployment) = hasGate(deployment) && !managesTemplate(deployment)
    }
}
