package dev.danki.operator.aot

import dev.danki.operator.leader.Leadership
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * The training pods on the API server ([TrainingPods] makes their specs): read, created and deleted
 * by name. A training pod is the leader's own, so creating one is refused once this replica lost its
 * Lease; deleting one is not, as it only cleans up what this replica started.
 */
class TrainingPodClient(
    private val client: KubernetesClient,
    private val leadership: Leadership,
) {
    /** The pod named like [pod], as the API server has it now; null when there is none. */
    fun get(pod: Pod): Pod? = named(pod).get()

    fun create(pod: Pod) {
        leadership.check("training pod ${pod.metadata.namespace}/${pod.metadata.name}")
        client
            .pods()
            .inNamespace(pod.metadata.namespace)
            .resource(pod)
            .create()
    }

    /** Asks for the pod's deletion, with its own grace period. */
    fun delete(pod: Pod) {
        named(pod).delete()
    }

    private fun named(pod: Pod) = client.pods().inNamespace(pod.metadata.namespace).withName(pod.metadata.name)
}
