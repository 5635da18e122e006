package dev.danki.operator.leader

import dev.danki.operator.config.OperatorConfig
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock
import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.CompletableFuture

/**
 * fabric8's LeaderElector on a `coordination.k8s.io` Lease (fabric8's stock LeaseLock: get, create,
 * and a merge patch carrying the resourceVersion it read), or "always leader" when election is off.
 * On a clean shutdown the Lease is released and then deleted when nobody took it meanwhile; in a pod
 * it is also owned by the operator's ServiceAccount, so `helm uninstall`, which takes the operator's
 * rights away before its pods stop, leaves no Lease behind either.
 */
class LeaderElection(
    private val client: KubernetesClient,
    private val config: OperatorConfig,
) {
    private val log = LoggerFactory.getLogger(LeaderElection::class.java)
    private var running: CompletableFuture<*>? = null

    /** Calls [onLeading] once leadership is won, [onLost] if it is lost later (or released by [stop]). */
    fun run(onLeading: () -> Unit, onLost: () -> Unit) {
        if (!config.leaderElection) {
            onLeading()
            return
        }
        val electionConfig =
            LeaderElectionConfigBuilder()
                .withName(config.leaseName)
                .withLeaseDuration(LEASE_DURATION)
                .withRenewDeadline(RENEW_DEADLINE)
                .withRetryPeriod(RETRY_PERIOD)
                .withReleaseOnCancel(true)
                .withLock(LeaseLock(leaseMetadata(), config.identity))
                .withLeaderCallbacks(
                    LeaderCallbacks(onLeading, onLost) { leader ->
                        log.atInfo().addKeyValue("leader", leader).log("leader changed")
                    },
                ).build()
        running =
            client
                .leaderElector()
                .withConfig(electionConfig)
                .build()
                .start()
    }

    /** The Lease's name, and in a pod its owner: fabric8's lock copies this metadata into every write. */
    private fun leaseMetadata() =
        ObjectMetaBuilder()
            .withNamespace(config.leaseNamespace)
            .withName(config.leaseName)
            .withOwnerReferences(listOfNotNull(LeaseOwner.fromToken(config.leaseNamespace)))
            .build()

    /**
     * Gives the Lease up (fabric8 releases it synchronously on cancel, so a standby takes over without
     * waiting for expiry), then deletes it if it is still free or ours. Every replica does this.
     */
    fun stop() {
        if (!config.leaderElection) return
        running?.cancel(true)
        LeaseCleanup(client, config.leaseNamespace, config.leaseName, config.identity).deleteIfFree()
    }

    companion object {
        /** client-go's defaults: a standby takes over at most 15 s after a leader dies. */
        val LEASE_DURATION: Duration = Duration.ofSeconds(15)
        val RENEW_DEADLINE: Duration = Duration.ofSeconds(10)
        val RETRY_PERIOD: Duration = Duration.ofSeconds(2)
    }
}
