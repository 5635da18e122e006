package dev.danki.cluster.pod

import dev.danki.cluster.logging.warnWith
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import org.slf4j.LoggerFactory

/**
 * Writes pod status with a strategic-merge patch of `pods/status`: conditions merge by type, so
 * the readiness-gate conditions another controller writes are left as they are.
 */
class PodStatusWriter(
    private val client: KubernetesClient,
) {
    private val log = LoggerFactory.getLogger(PodStatusWriter::class.java)

    /** Sends [json]; returns the pod as the API server now has it, or null. A pod that is gone is not an error. */
    fun patch(pod: Pod, json: String): Pod? =
        try {
            client
                .pods()
                .inNamespace(pod.metadata.namespace)
                .withName(pod.metadata.name)
                .subresource("status")
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), json)
        } catch (e: KubernetesClientException) {
            if (e.code != NOT_FOUND) {
                log.warnWith(
                    "pod status write failed",
                    "namespace" to pod.metadata.namespace,
                    "pod" to pod.metadata.name,
                    "code" to e.code,
                    error = e,
                )
            }
            null
        }

    /**
     * Completes a deletion the kubelet's way: delete with grace period 0 once the containers are
     * gone. True when done (or the pod is already gone); false, after logging, when to try again.
     */
    fun completeDeletion(pod: Pod): Boolean =
        try {
            client
                .pods()
                .inNamespace(pod.metadata.namespace)
                .withName(pod.metadata.name)
                .withGracePeriod(0)
                .delete()
            true
        } catch (e: KubernetesClientException) {
            if (e.code == NOT_FOUND) {
                true
            } else {
                log.warnWith(
                    "pod deletion failed",
                    "namespace" to pod.metadata.namespace,
                    "pod" to pod.metadata.name,
                    "code" to e.code,
                    error = e,
                )
                false
            }
        }

    private companion object {
        const val NOT_FOUND = 404
    }
}
