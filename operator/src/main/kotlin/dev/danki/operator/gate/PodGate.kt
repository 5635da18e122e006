package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.ServerSideApply
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodCondition
import io.fabric8.kubernetes.client.KubernetesClient
import java.time.Instant
import java.time.temporal.ChronoUnit

/**
 * Reads a pod's gate facts and writes its `danki.dev/warmed` condition on `pods/status` with
 * server-side apply; `conditions` is a map keyed by type, so danki owns only its own entry.
 */
class PodGate(
    private val client: KubernetesClient,
    /** Told how long each pods/status patch took, in seconds. */
    private val onPatched: (seconds: Double) -> Unit = {},
) {
    /** Writes [wanted] unless the pod already shows it; returns whether it wrote. */
    fun write(pod: Pod, wanted: GateCondition): Boolean {
        val current = conditionOf(pod)
        val sameStatus = current != null && (current.status == "True") == wanted.status
        if (sameStatus && current?.reason == wanted.reason && current.message == wanted.message) return false
        // the transition time moves only when the status does, as for any condition
        val transition =
            current?.lastTransitionTime?.takeIf { sameStatus }
                ?: Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        val started = System.nanoTime()
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .withName(pod.metadata.name)
            .subresource("status")
            .patch(ServerSideApply.CONTEXT, configuration(pod, wanted, transition))
        onPatched((System.nanoTime() - started) / NANOS_PER_SECOND)
        return true
    }

    /** The apply configuration: only danki's entry of `conditions`, a list keyed by type. */
    private fun configuration(pod: Pod, wanted: GateCondition, transition: String): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName(pod.metadata.name)
            .withNamespace(pod.metadata.namespace)
            .endMetadata()
            .withNewStatus()
            .addNewCondition()
            .withType(Keys.GATE_CONDITION)
            .withStatus(if (wanted.status) "True" else "False")
            .withReason(wanted.reason)
            .withMessage(Messages.cut(wanted.message))
            .withLastTransitionTime(transition)
            .endCondition()
            .endStatus()
            .build()

    companion object {
        private const val NANOS_PER_SECOND = 1e9

        fun conditionOf(pod: Pod): PodCondition? =
            pod.status
                ?.conditions
                .orEmpty()
                .firstOrNull { it.type == Keys.GATE_CONDITION }

        fun hasGate(pod: Pod) =
            pod.spec
                ?.readinessGates
                .orEmpty()
                .any { it.conditionType == Keys.GATE_CONDITION }

        fun containersReady(pod: Pod): PodCondition? =
            pod.status
                ?.conditions
                .orEmpty()
                .firstOrNull { it.type == Keys.CONTAINERS_READY && it.status == "True" }

        /** Sum of container restart counts: it grows whenever any container restarts. */
        fun restartCount(pod: Pod) =
            pod.status
                ?.containerStatuses
                .orEmpty()
                .sumOf { it.restartCount ?: 0 }
    }
}
