package dev.danki.operator.history

import dev.danki.operator.kube.ApiStatus
import dev.danki.operator.kube.BackoffPolicy
import dev.danki.operator.kube.Owners
import dev.danki.operator.kube.ServerSideApply
import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupHistorySpec
import dev.danki.operator.kube.WarmupHistoryStatus
import dev.danki.operator.kube.WarmupRunStatus
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration

/**
 * Keeps each Deployment's last [retention] warm-up results in its WarmupHistory (named after it and
 * owned by it, so it goes when the Deployment goes). Writes happen on one thread of their own: a
 * history write never delays a pod's gate, and two results of one Deployment never race each other.
 * The status is applied with the resourceVersion it was read at, so a concurrent writer (a new leader
 * during a hand-over) makes the API server refuse one write, which is then read and tried again
 * after a short jittered back-off.
 */
class RunHistory(
    private val client: KubernetesClient,
    private val retention: Int,
    private val deploymentOf: (namespace: String, name: String) -> Deployment?,
) : AutoCloseable {
    private val log = LoggerFactory.getLogger(RunHistory::class.java)

    /** Jittered, so two writers that collided do not collide again at once. */
    private val conflictBackoff = BackoffPolicy(Duration.ofMillis(CONFLICT_BACKOFF_MS), Duration.ofSeconds(1))
    private val writer = BoundedWriter("danki-history", MAX_PENDING)

    /**
     * Adds the finished run [runName] (on [node]) with its final [status] to [deployment]'s history,
     * in the background; nothing when history is off or the pod has no Deployment.
     */
    fun record(namespace: String, deployment: String, runName: String, node: String?, status: WarmupRunStatus) {
        if (retention == 0 || deployment.isEmpty()) return
        val entry = HistoryEntries.of(runName, node, status)
        if (!writer.submit { write(namespace, deployment, entry) }) {
            warn(namespace, deployment, entry, "$MAX_PENDING writes are already waiting (is the API server away?)")
        }
    }

    /** Adds [entry] now, on the caller's thread; false when it could not be written (logged). */
    fun write(namespace: String, deployment: String, entry: WarmupHistoryEntry): Boolean {
        try {
            repeat(MAX_ATTEMPTS) { attempt ->
                if (attempt > 0) Thread.sleep(conflictBackoff.delay(attempt).toMillis())
                val current = histories(namespace).withName(deployment).get() ?: create(namespace, deployment)
                if (current == null) {
                    log
                        .atInfo()
                        .addKeyValue("namespace", namespace)
                        .addKeyValue("deployment", deployment)
                        .addKeyValue("run", entry.run)
                        .log("warm-up history not kept: the Deployment is gone")
                    return false
                }
                val kept = current.status?.entries.orEmpty()
                if (HistoryEntries.holds(kept, entry)) return true
                if (apply(current, next(current.status, kept, entry))) return true
            }
            warn(namespace, deployment, entry, "the history changed under every one of $MAX_ATTEMPTS writes")
        } catch (e: KubernetesClientException) {
            warn(namespace, deployment, entry, "HTTP ${e.code}: ${e.status?.message ?: e.message}${hintFor(e.code)}")
        }
        return false
    }

    private fun next(status: WarmupHistoryStatus?, kept: List<WarmupHistoryEntry>, entry: WarmupHistoryEntry) =
        WarmupHistoryStatus().apply {
            retention = this@RunHistory.retention
            recorded = (status?.recorded ?: kept.size.toLong()) + 1
            entries = HistoryEntries.prepend(kept, entry, this@RunHistory.retention)
        }

    /** A new, empty history owned by the Deployment; null when the Deployment is gone. */
    private fun create(namespace: String, deployment: String): WarmupHistory? {
        val owner = deploymentOf(namespace, deployment) ?: return null
        val history =
            WarmupHistory().apply {
                metadata =
                    ObjectMetaBuilder()
                        .withName(deployment)
                        .withNamespace(namespace)
                        .withOwnerReferences(Owners.of(owner, controller = false))
                        .build()
                spec = WarmupHistorySpec().apply { this.deployment = deployment }
            }
        return try {
            histories(namespace).resource(history).create()
        } catch (e: KubernetesClientException) {
            if (e.code != ApiStatus.CONFLICT) throw e
            histories(namespace).withName(deployment).get()
        }
    }

    /** Applies [status] if the history is still at the version it was read at; false on a conflict. */
    private fun apply(current: WarmupHistory, status: WarmupHistoryStatus): Boolean {
        val metadata = current.metadata
        val configuration =
            WarmupHistory().apply {
                this.metadata =
                    ObjectMetaBuilder()
                        .withName(metadata.name)
                        .withNamespace(metadata.namespace)
                        .withResourceVersion(metadata.resourceVersion)
                        .build()
                this.status = status
            }
        return try {
            histories(metadata.namespace)
                .withName(metadata.name)
                .subresource("status")
                .patch(ServerSideApply.CONTEXT, configuration)
            true
        } catch (e: KubernetesClientException) {
            if (e.code != ApiStatus.CONFLICT) throw e
            false
        }
    }

    /** The usual cause of a refusal after an upgrade: Helm installs CRDs, and with them the rights, only on install. */
    private fun hintFor(code: Int) =
        when (code) {
            ApiStatus.NOT_FOUND -> MISSING_CRD_HINT
            ApiStatus.FORBIDDEN -> " (the operator's role lacks rights on warmuphistories: upgrade the chart)"
            else -> ""
        }

    private fun histories(namespace: String) = client.resources(WarmupHistory::class.java).inNamespace(namespace)

    private fun warn(namespace: String, deployment: String, entry: WarmupHistoryEntry, why: String) =
        log
            .atWarn()
            .addKeyValue("namespace", namespace)
            .addKeyValue("deployment", deployment)
            .addKeyValue("run", entry.run)
            .log("warm-up history not written: $why")

    /** Stops taking results; waits briefly for the ones already handed over. */
    override fun close() = writer.close(CLOSE_WAIT_SECONDS)

    companion object {
        private const val MISSING_CRD_HINT =
            " (is the WarmupHistory CRD installed? kubectl apply --server-side -f charts/danki/crds/)"
        private const val MAX_ATTEMPTS = 10
        private const val CONFLICT_BACKOFF_MS = 20L
        private const val CLOSE_WAIT_SECONDS = 5L

        /** Writes waiting at most: a WarmupRun keeps each result anyway, the history is its summary. */
        private const val MAX_PENDING = 1_000
    }
}
