package dev.danki.operator.gate

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.ServerSideApply
import dev.danki.operator.leader.Leadership
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
    /** Every write is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
    /** Told how long each pods/status patch took, in seconds. */
    private val onPatched: (seconds: Double) -> Unit = {},
) {
    /**
     * Writes [wanted] unless the pod already shows it; returns whether it wrote. [ifUnchanged]: only onto
     * the pod as [pod] shows it. The apply then carries its resourceVersion, which the API server takes
     * as a precondition: 409 Conflict when the pod changed since.
     */
    fun write(pod: Pod, wanted: GateCondition, ifUnchanged: Boolean = false): Boolean {
        val current = conditionOf(pod)
        val sameStatus = current != null && (current.status == "True") == wanted.status
        if (sameStatus && current?.reason == wanted.reason && current.message == wanted.message) return false
        // the transition time moves only when the status does, as for any condition
        val transition =
            current?.lastTransitionTime?.takeIf { sameStatus }
                ?: Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        leadership.check("the gate of pod ${pod.metadata.namespace}/${pod.metadata.name}")
        val started = System.nanoTime()
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .withName(pod.metadata.name)
            .subresource("status")
            .patch(ServerSideApply.CONTEXT, configuration(pod, wanted, transition, ifUnchanged))
        onPatched((System.nanoTime() - started) / NANOS_PER_SECOND)
        return true
    }

    /** The pod as the API server has it now, past any cache; null when it is gone. */
    fun read(pod: Pod): Pod? =
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .withName(pod.metadata.name)
            .get()

    /**
     * The apply configuration: only danki's entry of `conditions`, a list keyed by type; with
     * [ifUnchanged], the pod's resourceVersion as a precondition.
     */
    private fun configuration(pod: Pod, wanted: GateCondition, transition: String, ifUnchanged: Boolean): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName(pod.metadata.name)
            .withNamespace(pod.metadata.namespace)
            .withResourceVersion(pod.metadata.resourceVersion?.takeIf { ifUnchanged })
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

        /** The run whose result decides the pod's gate: the WarmupRun of its current restart count. */
        fun currentRun(pod: Pod): String = RunStore.runName(pod.metadata.name, restartCount(pod))

        /** Sum of container restart counts: it grows whenever any container restarts. */
        fun restartCount(pod: Pod) =
            pod.status
                ?.containerStatuses
                .orEmpty()
                .sumOf { it.restartCount ?: 0 }
    }
}
