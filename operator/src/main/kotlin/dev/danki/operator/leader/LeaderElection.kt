package dev.danki.operator.leader

import dev.danki.operator.config.OperatorConfig
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration
import org.slf4j.LoggerFactory
import java.lang.management.ManagementFactory
import java.time.Duration
import java.time.Instant
import java.time.ZonedDateTime

/**
 * JOSDK's leader election on a `coordination.k8s.io` Lease: every replica runs the informers, only
 * the leader reconciles. Three things JOSDK's lock does not do are added here. The Lease is owned by the
 * operator's ServiceAccount (patched on once leading), so `helm uninstall`, which takes the operator's
 * rights away before its pods stop, leaves no Lease behind. Its `acquireTime` is when this process began
 * to lead, which is where a pod's timeout counts from at the earliest ([claim]). And on a clean shutdown
 * [stop] deletes the Lease when it is still ours or free, so a standby takes over at its next try instead
 * of waiting for the Lease to expire (JOSDK does not release it on stop).
 */
class LeaderElection(
    private val client: KubernetesClient,
    private val config: OperatorConfig,
) {
    private val log = LoggerFactory.getLogger(LeaderElection::class.java)

    /**
     * The election for JOSDK's configuration, or null when election is off (this replica leads at once).
     * [onLeading] gets the Lease's `acquireTime`: when this replica began to lead.
     */
    fun configuration(onLeading: (Instant) -> Unit, onLost: () -> Unit): LeaderElectionConfiguration? {
        if (!config.leaderElection) return null
        val callbacks =
            LeaderCallbacks(
                { onLeading(claim()) },
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

    /**
     * Makes the Lease ours in two fields JOSDK's lock leaves alone, in one edit, and returns its
     * `acquireTime`:
     * - in a pod, the ServiceAccount becomes its owner (JOSDK's lock keeps other fields' owners as they are);
     * - an `acquireTime` from before this process started moves to now. fabric8's lock keeps the time
     *   when the holder's identity is unchanged, and the identity is the pod's name: a container that
     *   restarts within the Lease's duration would otherwise lead "since" its previous process, and the
     *   pods that waited through the restart would time out on its return. The time is then the Lease's,
     *   where a user or the next leader reads it, not a value only this process holds.
     */
    private fun claim(): Instant {
        val owner = LeaseOwner.fromToken(config.leaseNamespace)
        val started = processStart()
        return try {
            val lease =
                client
                    .leases()
                    .inNamespace(config.leaseNamespace)
                    .withName(config.leaseName)
                    .edit { lease -> LeaseClaim.of(lease, owner, started, ZonedDateTime.now()) }
            LeaseClaim.acquiredAt(lease) ?: Instant.now()
        } catch (e: KubernetesClientException) {
            // without the owner only helm uninstall's clean-up is lost: the Lease expires and is harmless;
            // without the time, acting counts from now, which is when the Lease was won
            log
                .atWarn()
                .addKeyValue("lease", config.leaseName)
                .addKeyValue("code", e.code)
                .log("could not claim the Lease's owner and acquireTime")
            Instant.now()
        }
    }

    /** After JOSDK stopped: deletes the Lease if it is still ours or free. Every replica does this. */
    fun stop() {
        if (!config.leaderElection) return
        LeaseCleanup(client, config.leaseNamespace, config.leaseName, config.identity).deleteIfFree()
    }

    companion object {
        /** When this JVM started: a Lease acquired before it was acquired by an earlier process. */
        fun processStart(): Instant = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().startTime)

        /** client-go's defaults: a standby takes over at most 15 s after a leader dies. */
        val LEASE_DURATION: Duration = Duration.ofSeconds(15)
        val RENEW_DEADLINE: Duration = Duration.ofSeconds(10)
        val RETRY_PERIOD: Duration = Duration.ofSeconds(2)
    }
}
