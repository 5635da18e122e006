package dev.danki.cluster.status

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import java.time.Instant
import java.time.temporal.ChronoUnit

/**
 * The part of a pod's status the node agent writes, as a strategic-merge patch of `pods/status`.
 * Conditions merge by type, so conditions owned by others (readiness gates) are never dropped.
 * A field the agent's status does not have is sent as null, which deletes it: a Ready condition
 * that turns True loses the reason and message it had while False, as the kubelet's does. Times
 * have whole seconds, as the API server keeps them, so a status compares equal to its stored self.
 */
data class PodStatusPatch(
    val phase: String,
    val podIp: String?,
    val hostIp: String,
    val startTime: String,
    val containers: List<ContainerSnapshot>,
    val conditions: List<PodCondition>,
    /** Set when the node failed the pod itself (past its active deadline); the phase is then Failed. */
    val failure: PodFailure? = null,
) {
    /** The patch body, `{"status": {...}}`. */
    fun toTree(): ObjectNode {
        val status = JsonNodeFactory.instance.objectNode()
        status.put("phase", phase)
        status.put("hostIP", hostIp)
        status.putArray("hostIPs").addObject().put("ip", hostIp)
        status.put("startTime", startTime)
        if (podIp != null) {
            status.put("podIP", podIp)
            status.putArray("podIPs").addObject().put("ip", podIp)
        }
        // Only a pod the node failed carries a reason: one written by someone else is left alone.
        if (failure != null) {
            status.put("reason", failure.reason)
            status.put("message", failure.message)
        }
        val conditionList = status.putArray("conditions")
        conditions.forEach { condition ->
            conditionList
                .addObject()
                .put("type", condition.type)
                .put("status", condition.status)
                .put("reason", condition.reason)
                .put("message", condition.message)
                .put("lastTransitionTime", condition.lastTransitionTime)
        }
        val statuses = status.putArray("containerStatuses")
        containers.forEach { statuses.add(it.toTree()) }
        return JsonNodeFactory.instance.objectNode().also { it.set<JsonNode>("status", status) }
    }

    /** The JSON body of the patch. */
    fun toJson(): String = JSON.writeValueAsString(toTree())

    companion object {
        private val JSON = ObjectMapper()

        /** [instant] as the API server keeps times: RFC 3339 with whole seconds. */
        fun timestamp(instant: Instant): String = instant.truncatedTo(ChronoUnit.SECONDS).toString()

        /** Builds the patch for [pod] from what the agent [observed]. */
        fun build(pod: Pod, observed: PodObservation, now: Instant): PodStatusPatch {
            val failure = observed.failure
            val containers = observed.containers
            val phase = if (failure != null) PodPhases.FAILED else PodPhases.compute(containers)
            return PodStatusPatch(
                phase = phase,
                podIp = observed.podIp,
                hostIp = observed.hostIp,
                startTime = pod.status?.startTime ?: timestamp(observed.startedHere),
                containers = containers,
                conditions = PodConditions.compute(pod, containers, phase, now.truncatedTo(ChronoUnit.SECONDS)),
                failure = failure,
            )
        }
    }
}

private fun ContainerSnapshot.toTree(): ObjectNode {
    val node = JsonNodeFactory.instance.objectNode()
    node
        .put("name", name)
        .put("image", image)
        .put("imageID", "")
        .put("containerID", containerId)
        .put("ready", ready)
        .put("started", started)
        .put("restartCount", restartCount)
    node.set<JsonNode>("state", state.toTree())
    node.set<JsonNode>("lastState", lastTermination.toTree())
    return node
}

/** A container state with every kind present, the two it is not as null, so a patch clears them. */
private fun RunState?.toTree(): ObjectNode {
    val node = JsonNodeFactory.instance.objectNode()
    node.putNull("waiting")
    node.putNull("running")
    node.putNull("terminated")
    when (this) {
        is RunState.Waiting -> {
            node.putObject("waiting").put("reason", reason).put("message", message)
        }

        is RunState.Running -> {
            node.putObject("running").put("startedAt", PodStatusPatch.timestamp(startedAt))
        }

        is RunState.Terminated -> {
            node
                .putObject("terminated")
                .put("exitCode", exitCode)
                .put("signal", signal)
                .put("reason", reason)
                .put("message", message)
                .put("startedAt", startedAt?.let(PodStatusPatch::timestamp))
                .put("finishedAt", PodStatusPatch.timestamp(finishedAt))
        }

        null -> {
            Unit
        }
    }
    return node
}
