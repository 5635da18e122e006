package dev.danki.cluster.status

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import java.time.Instant

/** The pod conditions the node agent owns, and the reasons it writes, named as the kubelet names them. */
object PodConditions {
    const val POD_SCHEDULED = "PodScheduled"
    const val INITIALIZED = "Initialized"
    const val CONTAINERS_READY = "ContainersReady"
    const val READY = "Ready"

    /** Conditions this agent writes; every other condition (readiness gates) belongs to someone else. */
    val OWNED = setOf(POD_SCHEDULED, INITIALIZED, CONTAINERS_READY, READY)

    const val CONTAINERS_NOT_READY = "ContainersNotReady"
    const val READINESS_GATES_NOT_READY = "ReadinessGatesNotReady"
    const val POD_COMPLETED = "PodCompleted"

    /**
     * The owned conditions for [pod] given its [containers] and [phase]. Ready is True only when
     * ContainersReady is True and every `spec.readinessGates` condition on the pod is True.
     * A condition whose status did not change keeps its lastTransitionTime.
     */
    fun compute(pod: Pod, containers: List<ContainerSnapshot>, phase: String, now: Instant): List<PodCondition> {
        val completed = phase == PodPhases.SUCCEEDED || phase == PodPhases.FAILED
        val unready = containers.filter { !it.ready }.map { it.name }
        val containersReady =
            when {
                completed -> Verdict(false, POD_COMPLETED)
                unready.isEmpty() -> Verdict(true)
                else -> Verdict(false, CONTAINERS_NOT_READY, "containers with unready status: ${unready.bracketed()}")
            }
        val gateProblem = readinessGateProblem(pod)
        val ready =
            when {
                !containersReady.status -> containersReady
                gateProblem != null -> Verdict(false, READINESS_GATES_NOT_READY, gateProblem)
                else -> Verdict(true)
            }
        return listOf(
            condition(pod, POD_SCHEDULED, Verdict(true), now),
            condition(pod, INITIALIZED, Verdict(true), now),
            condition(pod, CONTAINERS_READY, containersReady, now),
            condition(pod, READY, ready, now),
        )
    }

    /** Why the readiness gates hold the pod back, in the kubelet's words, or null when all are True. */
    fun readinessGateProblem(pod: Pod): String? {
        val existing =
            pod.status
                ?.conditions
                .orEmpty()
                .associateBy { it.type }
        val problems =
            pod.spec?.readinessGates.orEmpty().mapNotNull { gate ->
                val type = gate.conditionType
                val found = existing[type]
                when {
                    found == null -> {
                        "corresponding condition of pod readiness gate \"$type\" does not exist."
                    }

                    found.status != "True" -> {
                        "the status of pod readiness gate \"$type\" is not \"True\", but ${found.status}"
                    }

                    else -> {
                        null
                    }
                }
            }
        return problems.takeIf { it.isNotEmpty() }?.joinToString(", ")
    }

    private fun List<String>.bracketed() = joinToString(" ", "[", "]")

    private data class Verdict(
        val status: Boolean,
        val reason: String? = null,
        val message: String? = null,
    )

    private fun condition(pod: Pod, type: String, verdict: Verdict, now: Instant): PodCondition {
        val status = if (verdict.status) "True" else "False"
        val previous =
            pod.status
                ?.conditions
                .orEmpty()
                .firstOrNull { it.type == type }
        val transition = previous?.lastTransitionTime?.takeIf { previous.status == status } ?: now.toString()
        return PodConditionBuilder()
            .withType(type)
            .withStatus(status)
            .withReason(verdict.reason)
            .withMessage(verdict.message)
            .withLastTransitionTime(transition)
            .build()
    }
}
