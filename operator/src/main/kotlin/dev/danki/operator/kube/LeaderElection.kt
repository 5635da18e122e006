package dev.danki.operator.kube

import dev.danki.operator.config.OperatorConfig
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder
import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.CompletableFuture

/**
 * fabric8's LeaderElector on a `coordination.k8s.io` Lease ([LeaseUpdateLock]), or "always leader"
 * when election is off. On a clean shutdown the Lease is released and then deleted when nobody took
 * it meanwhile; in a pod it is also owned by the operator's ServiceAccount, so `helm uninstall`,
 * which takes the operator's rights away before its pods stop, leaves no Lease behind either.
 */
class LeaderElection(
    private val client: KubernetesClient,
    private val config: OperatorConfig,
) {
    private val log = LoggerFactory.getLogger(LeaderElection::class.java)
    private var running: CompletableFuture<*>? = null

    /** Calls [onLeading] once leadership is won, [onLost] if it is lost later (or released by [stop]). */
    fun run(
        onLeading: () -> Unit,
        onLost: () -> Unit,
    ) {
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
                .withLock(
                    LeaseUpdateLock(
                        config.leaseNamespace,
                        config.leaseName,
                        config.identity,
                        LeaseOwner.fromToken(config.leaseNamespace),
                    ),
                ).withLeaderCallbacks(
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
