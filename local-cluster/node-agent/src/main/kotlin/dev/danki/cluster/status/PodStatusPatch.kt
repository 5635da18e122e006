package dev.danki.cluster.status

import io.fabric8.kubernetes.api.model.ContainerState
import io.fabric8.kubernetes.api.model.ContainerStateBuilder
import io.fabric8.kubernetes.api.model.ContainerStatus
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import io.fabric8.kubernetes.client.utils.Serialization
import java.time.Instant

/**
 * The part of a pod's status the node agent writes, as a strategic-merge patch of `pods/status`.
 * Conditions merge by type, so conditions owned by others (readiness gates) are never dropped.
 */
data class PodStatusPatch(
    val phase: String,
    val podIp: String?,
    val hostIp: String,
    val startTime: String,
    val containerStatuses: List<ContainerStatus>,
    val conditions: List<PodCondition>,
    /** Set when the node failed the pod itself (past its active deadline); the phase is then Failed. */
    val failure: PodFailure? = null,
) {
    /** The JSON body of the patch. */
    fun toJson(): String {
        val status =
            linkedMapOf<String, Any?>(
                "phase" to phase,
                "hostIP" to hostIp,
                "hostIPs" to listOf(mapOf("ip" to hostIp)),
                "startTime" to startTime,
                "containerStatuses" to containerStatuses,
                "conditions" to conditions,
            )
        if (podIp != null) {
            status["podIP"] = podIp
            status["podIPs"] = listOf(mapOf("ip" to podIp))
        }
        if (failure != null) {
            status["reason"] = failure.reason
            status["message"] = failure.message
        }
        return Serialization.asJson(mapOf("status" to status))
    }

    /** What matters about this status, without timestamps: equal essences need no write. */
    fun essence(): String = essenceOf(phase, podIp, conditions, containerStatuses) + "|${failure?.reason}"

    companion object {
        /** Builds the patch for [pod] from what the agent [observed]. */
        fun build(
            pod: Pod,
            observed: PodObservation,
            now: Instant,
        ): PodStatusPatch {
            val failure = observed.failure
            val containers = observed.containers
            val phase = if (failure != null) PodPhases.FAILED else PodPhases.compute(containers)
            return PodStatusPatch(
                phase = phase,
                podIp = observed.podIp,
                hostIp = observed.hostIp,
                startTime = pod.status?.startTime ?: observed.startedHere.toString(),
                containerStatuses = containers.map { it.toStatus() },
                conditions = PodConditions.compute(pod, containers, phase, now),
                failure = failure,
            )
        }

        /** The essence of what [pod] currently shows, to compare with [essence]. */
        fun essenceOf(pod: Pod): String {
            val status = pod.status
            val owned = status?.conditions.orEmpty().filter { it.type in PodConditions.OWNED }
            return essenceOf(status?.phase, status?.podIP, owned, status?.containerStatuses.orEmpty()) +
                "|${status?.reason}"
        }

        private fun essenceOf(
            phase: String?,
            podIp: String?,
            conditions: List<PodCondition>,
            containers: List<ContainerStatus>,
        ): String {
            val conditionPart =
                conditions.sortedBy { it.type }.joinToString(",") { "${it.type}=${it.status}:${it.reason}" }
            val containerPart =
                containers.sortedBy { it.name }.joinToString(",") {
                    val state = it.state
                    val kind =
                        when {
                            state?.running != null -> "running"
                            state?.terminated != null -> "terminated:${state.terminated.exitCode}"
                            else -> "waiting:${state?.waiting?.reason}"
                        }
                    "${it.name}:${it.ready}:${it.started}:${it.restartCount}:$kind"
                }
            return "$phase|$podIp|$conditionPart|$containerPart"
        }
    }
}

private fun ContainerSnapshot.toStatus(): ContainerStatus =
    ContainerStatusBuilder()
        .withName(name)
        .withImage(image)
        .withImageID("")
        .withContainerID(containerId)
        .withReady(ready)
        .withStarted(started)
        .withRestartCount(restartCount)
        .withState(state.toState())
        .withLastState(lastTermination?.toState() ?: ContainerState())
        .build()

private fun RunState.toState(): ContainerState =
    when (this) {
        is RunState.Waiting -> {
            ContainerStateBuilder().withNewWaiting(message, reason).build()
        }

        is RunState.Running -> {
            ContainerStateBuilder().withNewRunning(startedAt.toString()).build()
        }

        is RunState.Terminated -> {
            ContainerStateBuilder()
                .withNewTerminated()
                .withExitCode(exitCode)
                .withReason(reason)
                .withMessage(message)
                .withSignal(signal)
                .withStartedAt(startedAt?.toString())
                .withFinishedAt(finishedAt.toString())
                .endTerminated()
                .build()
        }
    }
