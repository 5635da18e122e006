package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import dev.danki.operator.leader.Leadership
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.PodReadinessGate
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Puts the `danki.dev/warmup` label and the `danki.dev/warmed` readiness gate on a Deployment's pod
 * template with server-side apply (field manager `danki`), and takes them off again. `readinessGates`
 * is an atomic list, so danki applies the user's own gates along with its gate, owns the list from
 * then on, and on opt-out applies the user's gates alone (or nothing, when there are none).
 */
class TemplateGate(
    private val client: KubernetesClient,
    /** A template patch is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
) {
    /**
     * What a Deployment's template needs from danki right now: [LABEL] puts danki's label beside a gate
     * the user wrote, so that danki's pod cache, which holds only labelled pods, holds its pods.
     */
    enum class Change { NONE, ADD, LABEL, REMOVE }

    fun changeFor(deployment: Deployment, switch: WarmupSwitch): Change =
        when (switch) {
            // a template that already carries the gate (danki's or the user's) needs at most the label
            WarmupSwitch.ENABLED -> {
                when {
                    !hasGate(deployment) -> Change.ADD
                    !hasLabel(deployment) -> Change.LABEL
                    else -> Change.NONE
                }
            }

            WarmupSwitch.DISABLED, WarmupSwitch.ABSENT -> {
                val leftovers = hasGate(deployment) || hasLabel(deployment)
                when {
                    ownsGates(deployment) && leftovers -> Change.REMOVE

                    // the user's own gate: its pods are warmed or released, so danki must see them
                    hasGate(deployment) && !hasLabel(deployment) -> Change.LABEL

                    else -> Change.NONE
                }
            }

            // a typo must not roll the Deployment either way: the Warning Event asks for a fix
            WarmupSwitch.INVALID -> {
                Change.NONE
            }
        }

    fun apply(deployment: Deployment, change: Change) {
        if (change == Change.NONE) return
        leadership.check("the template of Deployment ${deployment.metadata.namespace}/${deployment.metadata.name}")
        val configuration =
            when (change) {
                Change.NONE -> return
                Change.ADD -> templateConfiguration(deployment, userGates(deployment) + Keys.GATE_CONDITION, true)
                Change.LABEL -> labelConfiguration(deployment)
                Change.REMOVE -> removeConfiguration(deployment)
            }
        client
            .resource(configuration)
            .fieldManager(Keys.FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply()
    }

    /**
     * Drops danki's label and gate; the user's other gates stay (danki keeps owning that list). With
     * none, the configuration names the Deployment only: danki then owns nothing, so what it owned goes.
     */
    private fun removeConfiguration(deployment: Deployment): Deployment {
        val others = userGates(deployment)
        return if (others.isEmpty()) identity(deployment).build() else templateConfiguration(deployment, others, false)
    }

    private fun templateConfiguration(deployment: Deployment, gates: List<String>, withLabel: Boolean): Deployment {
        val template =
            PodTemplateSpecBuilder()
                .withNewSpec()
                .withReadinessGates(gates.map { PodReadinessGate(it) })
                .endSpec()
        if (withLabel) template.withNewMetadata().addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE).endMetadata()
        return identity(deployment)
            .withNewSpec()
            .withTemplate(template.build())
            .endSpec()
            .build()
    }

    /** The label alone (labels are a map, so danki owns just its key): the user's gates stay theirs. */
    private fun labelConfiguration(deployment: Deployment): Deployment =
        identity(deployment)
            .withNewSpec()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels(Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE)
            .endMetadata()
            .endTemplate()
            .endSpec()
            .build()

    private fun identity(deployment: Deployment) =
        DeploymentBuilder()
            .withNewMetadata()
            .withName(deployment.metadata.name)
            .withNamespace(deployment.metadata.namespace)
            .endMetadata()

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

        /**
         * True when danki applied the template's readiness gates (its managedFields entry, manager `danki`,
         * owns `spec.template.spec.readinessGates`); not when it applied only its label beside the user's gate.
         */
        fun ownsGates(deployment: Deployment) =
            deployment.metadata.managedFields
                .orEmpty()
                .filter { it.manager == Keys.FIELD_MANAGER && it.operation == "Apply" }
                .any { owned(it.fieldsV1?.additionalProperties, "f:spec", "f:template", "f:spec", "f:readinessGates") }

        private fun owned(fields: Map<String, Any>?, vararg path: String): Boolean {
            var level: Map<*, *> = fields ?: return false
            for (key in path) level = level[key] as? Map<*, *> ?: return false
            return true
        }

        /** A gate the user wrote into their own manifest, not one danki applied. */
        fun hasUserGate(deployment: Deployment) = hasGate(deployment) && !ownsGates(deployment)
    }
}
