package dev.danki.operator.kube

import dev.danki.operator.leader.Leadership
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Evicts pods through the Eviction API, so a PodDisruptionBudget decides as it does for a node drain,
 * and only the pod that was looked at: the eviction carries its UID as a precondition.
 */
class PodEviction(
    private val client: KubernetesClient,
    /** An eviction is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
) {
    /** True: the pod is being deleted; false: a PodDisruptionBudget does not allow it now (HTTP 429). */
    fun evict(pod: Pod): Boolean {
        val meta = pod.metadata
        leadership.check("the eviction of pod ${meta.namespace}/${meta.name}")
        val eviction =
            EvictionBuilder()
                .withNewMetadata()
                .withName(meta.name)
                .withNamespace(meta.namespace)
                .endMetadata()
                .withDeleteOptions(
                    DeleteOptionsBuilder()
                        .withNewPreconditions()
                        .withUid(meta.uid)
                        .endPreconditions()
                        .build(),
                ).build()
        return client
            .pods()
            .inNamespace(meta.namespace)
            .withName(meta.name)
            .evict(eviction)
    }
}
