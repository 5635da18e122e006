package dev.danki.operator.gate

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.ServerSideApply
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Puts the `danki.dev/warmup` label and the `danki.dev/warmed` readiness gate on a Deployment's pod
 * template with server-side apply (field manager `danki`), and takes them off again. `readinessGates`
 * is an atomic list, so danki applies the user's own gates along with its gate, owns the list from
 * then on, and on opt-out applies the user's gates alone (or nothing, when there are none).
 */
class TemplateGate(
    private val client: KubernetesClient,
) {
    private val json = ObjectMapper()

    /** What a Deployment's template needs from danki right now. */
    enum class Change { NONE, ADD, REMOVE }

    fun changeFor(
        deployment: Deployment,
        switch: WarmupSwitch,
    ): Change =
        when (switch) {
            // a template that already carries the gate (danki's or the user's) needs no patch
            WarmupSwitch.ENABLED -> {
                if (hasGate(deployment)) Change.NONE else Change.ADD
            }

            WarmupSwitch.DISABLED, WarmupSwitch.ABSENT -> {
                val leftovers = hasGate(deployment) || hasLabel(deployment)
                if (managesTemplate(deployment) && leftovers) Change.REMOVE else Change.NONE
            }

            // a typo must not roll the Deployment either way: the Warning Event asks for a fix
            WarmupSwitch.INVALID -> {
                Change.NONE
            }
        }

    fun apply(
        deployment: Deployment,
        change: Change,
    ) {
        val body =
            when (change) {
                Change.NONE -> return
                Change.ADD -> templateConfiguration(deployment, userGates(deployment) + Keys.GATE_CONDITION, true)
                Change.REMOVE -> removeConfiguration(deployment)
            }
        client
            .apps()
            .deployments()
            .inNamespace(deployment.metadata.namespace)
            .withName(deployment.metadata.name)
            .patch(ServerSideApply.CONTEXT, json.writeValueAsString(body))
    }

    /** Drops danki's label and gate; the user's other gates stay (danki keeps owning that list). */
    private fun removeConfiguration(deployment: Deployment): Map<String, Any> {
        val others = userGates(deployment)
        return if (others.isEmpty()) identity(deployment) else templateConfiguration(deployment, others, false)
    }

    private fun templateConfiguration(
        deployment: Deployment,
        gates: List<String>,
        withLabel: Boolean,
    ): Map<String, Any> {
        val template =
            mapOf("spec" to mapOf("readinessGates" to gates.map { mapOf("conditionType" to it) })) +
                if (withLabel) {
                    mapOf("metadata" to mapOf("labels" to mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE)))
                } else {
                    emptyMap()
                }
        return identity(deployment) + mapOf("spec" to mapOf("template" to template))
    }

    private fun identity(deployment: Deployment): Map<String, Any> =
        mapOf(
            "apiVersion" to "apps/v1",
            "kind" to "Deployment",
            "metadata" to mapOf("name" to deployment.metadata.name, "namespace" to deployment.metadata.namespace),
        )

    companion object {
        private fun gatesOf(deployment: Deployment) =
            deployment.spec
                ?.template
                ?.spec
                ?.readinessGates
                .orEmpty()
                .map { it.conditionType }

        /** The template's readiness gates other than danki's. */
        fun userGates(deployment: Deployment) = gatesOf(deployment).filter { it != Keys.GATE_CONDITION }

        fun hasGate(deployment: Deployment) = Keys.GATE_CONDITION in gatesOf(deployment)

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
