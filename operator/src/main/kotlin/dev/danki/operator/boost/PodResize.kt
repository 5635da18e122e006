package dev.danki.operator.boost

import dev.danki.operator.kube.ServerSideApply
import dev.danki.operator.leader.Leadership
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * Resizes one container's CPU in place, through the pod's `resize` subresource (server-side apply as
 * `danki`: the apply configuration names only that container's CPU), and waits for the kubelet to
 * report it. Nothing restarts: the container's cgroup gets the new quota.
 */
class PodResize(
    private val client: KubernetesClient,
    /** A resize is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
) {
    /** What the kubelet made of a resize, read from the pod's status. */
    sealed interface Outcome {
        /** The container's status shows the limit asked for. */
        data object Applied : Outcome

        /** The kubelet will not (Infeasible) or cannot yet (Deferred), or failed (Error): [message] is its own. */
        data class NotApplied(
            val reason: String,
            val message: String,
        ) : Outcome

        /** The pod is gone. */
        data object Gone : Outcome
    }

    /** Asks for [limitMillis] (and [requestMillis], for a Guaranteed pod) on [container]; the API may refuse. */
    fun request(pod: Pod, container: String, limitMillis: Long, requestMillis: Long?) {
        leadership.check("the resize of pod ${pod.metadata.namespace}/${pod.metadata.name}")
        val resources = ResourceRequirementsBuilder().addToLimits(CPU, Quantity(CpuQuantity.format(limitMillis)))
        requestMillis?.let { resources.addToRequests(CPU, Quantity(CpuQuantity.format(it))) }
        val apply =
            PodBuilder()
                .withNewMetadata()
                .withName(pod.metadata.name)
                .withNamespace(pod.metadata.namespace)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName(container)
                .withResources(resources.build())
                .endContainer()
                .endSpec()
                .build()
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .withName(pod.metadata.name)
            .subresource(SUBRESOURCE)
            .patch(ServerSideApply.CONTEXT, apply)
    }

    /**
     * Waits up to [within] for the kubelet to apply [limitMillis] to [container], or to say why it will
     * not; null when it has said neither by then (the resize stays asked for).
     */
    fun await(pod: Pod, container: String, limitMillis: Long, within: Duration): Outcome? {
        var outcome: Outcome? = null
        try {
            client
                .pods()
                .inNamespace(pod.metadata.namespace)
                .withName(pod.metadata.name)
                .waitUntilCondition(
                    { current ->
                        outcome = outcomeOf(current, container, limitMillis)
                        outcome != null
                    },
                    within.toMillis(),
                    TimeUnit.MILLISECONDS,
                )
        } catch (_: KubernetesClientTimeoutException) {
            // neither applied nor refused in time: the caller records it as still asked for
        }
        return outcome
    }

    companion object {
        const val SUBRESOURCE = "resize"
        private const val CPU = "cpu"

        /** The kubelet's conditions on a resize it has not finished (Kubernetes 1.33 and later). */
        private const val RESIZE_PENDING = "PodResizePending"
        private const val RESIZE_IN_PROGRESS = "PodResizeInProgress"
        private const val REASON_ERROR = "Error"

        /** What [pod]'s status says of a resize of [container] to [limitMillis]; null while it is under way. */
        fun outcomeOf(pod: Pod?, container: String, limitMillis: Long): Outcome? {
            if (pod == null || pod.metadata?.deletionTimestamp != null) return Outcome.Gone
            val conditions = pod.status?.conditions.orEmpty()
            conditions.firstOrNull { it.type == RESIZE_PENDING && it.status == "True" }?.let {
                return Outcome.NotApplied(it.reason ?: RESIZE_PENDING, it.message.orEmpty())
            }
            val inProgress = conditions.firstOrNull { it.type == RESIZE_IN_PROGRESS && it.status == "True" }
            if (inProgress?.reason ==
                REASON_ERROR
            ) {
                return Outcome.NotApplied(REASON_ERROR, inProgress.message.orEmpty())
            }
            val status =
                pod.status
                    ?.containerStatuses
                    .orEmpty()
                    .firstOrNull { it.name == container }
            val actual = CpuQuantity.millisOf(status?.resources?.limits?.get(CPU))
            return Outcome.Applied.takeIf { inProgress == null && actual == limitMillis }
        }
    }
}
