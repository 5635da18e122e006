package dev.danki.cluster.node

import dev.danki.cluster.config.AgentConfig
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import java.time.ZoneOffset
import java.time.ZonedDateTime

/**
 * The node's Lease in kube-node-lease. The node lifecycle controller reads it as the heartbeat:
 * without a renewal within 40 s the Node turns Ready=Unknown and its pods are evicted later.
 */
class NodeLease(
    private val client: KubernetesClient,
    private val config: AgentConfig,
) {
    fun renew() {
        val lease =
            LeaseBuilder()
                .withNewMetadata()
                .withName(config.nodeName)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(config.nodeName)
                .withLeaseDurationSeconds(DURATION_SECONDS)
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
                .endSpec()
                .build()
        client
            .leases()
            .inNamespace(NAMESPACE)
            .resource(lease)
            .fieldManager(FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply()
    }

    companion object {
        const val NAMESPACE = "kube-node-lease"
        const val DURATION_SECONDS = 40

        /** The kubelet renews every 10 s (a quarter of the duration). */
        const val RENEW_SECONDS = 10L
        private const val FIELD_MANAGER = "danki-node-agent"
    }
}
