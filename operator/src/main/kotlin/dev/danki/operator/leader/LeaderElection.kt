package dev.danki.operator.leader

import dev.danki.operator.config.OperatorConfig
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration
import org.slf4j.LoggerFactory
import java.time.Duration

/**
 * JOSDK's leader election on a `coordination.k8s.io` Lease: every replica runs the informers, only
 * the leader reconciles. Two things JOSDK's lock does not do are added here. The Lease is owned by the
 * operator's ServiceAccount (patched on once leading), so `helm uninstall`, which takes the operator's
 * rights away before its pods stop, leaves no Lease behind. And on a clean shutdown [stop] deletes the
 * Lease when it is still ours or free, so a standby takes over at its next try instead of waiting for
 * the Lease to expire (JOSDK does not release it on stop).
 */
class LeaderElection(
    private val client: KubernetesClient,
    private val config: OperatorConfig,
) {
    private val log = LoggerFactory.getLogger(LeaderElection::class.java)

    /** The election for JOSDK's configuration, or null when election is off (this replica leads at once). */
    fun configuration(onLeading: () -> Unit, onLost: () -> Unit): LeaderElectionConfiguration? {
        if (!config.leaderElection) return null
        val callbacks =
            LeaderCallbacks(
                {
                    ownLease()
                    onLeading()
                },
                onLost,
            ) { leader -> log.atInfo().addKeyValue("leader", leader).log("leader changed") }
        return LeaderElectionConfiguration(
            config.leaseName,
            config.leaseNamespace,
            LEASE_DURATION,
            RENEW_DEADLINE,
            RETRY_PERIOD,
            config.identity,
            callbacks,
            // the caller decides: exiting from inside the shutdown hook would hang the pod until SIGKILL
            false,
        )
    }

    /** In a pod, makes the ServiceAccount the Lease's owner; JOSDK's lock keeps other fields' owners as they are. */
    private fun ownLease() {
        val owner = LeaseOwner.fromToken(config.leaseNamespace) ?: return
        try {
            client
                .leases()
                .inNamespace(config.leaseNamespace)
                .withName(config.leaseName)
                .edit { lease ->
                    LeaseBuilder(lease)
                        .editMetadata()
                        .withOwnerReferences(owner)
                        .endMetadata()
                        .build()
                }
        } catch (e: KubernetesClientException) {
            // without the owner only helm uninstall's clean-up is lost: the Lease expires and is harmless
            log
                .atWarn()
                .addKeyValue("lease", config.leaseName)
                .addKeyValue("code", e.code)
                .log("could not set the Lease's owner")
        }
    }

    /** After JOSDK stopped: deletes the Lease if it is still ours or free. Every replica does this. */
    fun stop() {
        if (!config.leaderElection) return
        LeaseCleanup(client, config.leaseNamespace, config.leaseName, config.identity).deleteIfFree()
    }

    companion object {
        /** client-go's defaults: a standby takes over at most 15 s after a leader dies. */
        val LEASE_DURATION: Duration = Duration.ofSeconds(15)
        val RENEW_DEADLINE: Duration = Duration.ofSeconds(10)
        val RETRY_PERIOD: Duration = Duration.ofSeconds(2)
    }
}
