package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment

/**
 * What the webhook adds to a pod being created: danki's readiness gate and the `danki.dev/warmup` label,
 * as JSON Patch operations, when the pod's Deployment is opted in (by its annotation or its namespace's
 * label). Pure: the Deployment and the namespace's labels are looked up by the caller.
 */
object PodMutation {
    /**
     * The patch for [pod] of [deployment] (null: not a Deployment's pod) in a namespace with
     * [namespaceLabels]; empty when nothing is to change.
     */
    fun patchFor(
        pod: Pod,
        deployment: Deployment?,
        namespaceLabels: Map<String, String> = emptyMap(),
    ): List<Map<String, Any>> {
        if (!warms(deployment, namespaceLabels)) return emptyList()
        val gates = pod.spec?.readinessGates
        // a gate already there (the user's template, or template mode before a switch) is left as it is
        if (gates.orEmpty().any { it.conditionType == Keys.GATE_CONDITION }) return emptyList()
        val gate = mapOf("conditionType" to Keys.GATE_CONDITION)
        val addGate =
            if (gates.isNullOrEmpty()) {
                op("/spec/readinessGates", listOf(gate))
            } else {
                op("/spec/readinessGates/-", gate)
            }
        val addLabel =
            if (pod.metadata?.labels == null) {
                op("/metadata/labels", mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE))
            } else {
                op("/metadata/labels/${escape(Keys.WARMUP_LABEL)}", Keys.WARMUP_LABEL_VALUE)
            }
        return listOf(addGate, addLabel)
    }

    /**
     * Whether pods of [deployment] are warmed, so gated (by this patch or by their template): what also
     * decides whether they are given an AOT cache.
     */
    fun warms(deployment: Deployment?, namespaceLabels: Map<String, String>): Boolean =
        deployment != null && WarmupSwitch.of(deployment, namespaceLabels) == WarmupSwitch.ENABLED

    private fun op(path: String, value: Any) = mapOf("op" to "add", "path" to path, "value" to value)

    /** JSON Pointer escaping (RFC 6901): `~` then `/`. */
    private fun escape(key: String) = key.replace("~", "~0").replace("/", "~1")
}
