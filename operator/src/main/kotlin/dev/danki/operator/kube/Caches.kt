package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.dsl.MixedOperation
import io.fabric8.kubernetes.client.dsl.Resource
import java.util.concurrent.CompletableFuture

/**
 * The informer caches every reconciler reads from: Deployments, Pods and WarmupRuns in the watched
 * namespaces, and with [namespaceOptIn] the Namespaces themselves (webhook mode: a namespace label opts
 * in all its Deployments). Pods are indexed by their Deployment, WarmupRuns by their pod.
 */
class Caches(
    client: KubernetesClient,
    watched: List<String>,
    namespaceOptIn: Boolean = false,
) {
    val deployments: Cache<Deployment> =
        cacheOf("Deployments", watched) { ns -> scoped(client.apps().deployments(), ns) }
    val pods: Cache<Pod> = cacheOf("Pods", watched) { ns -> scoped(client.pods(), ns) }
    val runs: Cache<WarmupRun> =
        cacheOf("WarmupRuns", watched) { ns -> scoped(client.resources(WarmupRun::class.java), ns) }

    /** Namespaces, for their opt-in label; cluster-scoped (one informer), null when not needed. */
    val namespaces: Cache<Namespace>? =
        if (namespaceOptIn) Cache("Namespaces", listOf(client.namespaces().runnableInformer(RESYNC_MILLIS))) else null

    private val all: List<Cache<out HasMetadata>> =
        listOfNotNull<Cache<out HasMetadata>>(deployments, pods, runs, namespaces)

    init {
        pods.addIndex(BY_DEPLOYMENT) { pod ->
            listOfNotNull(PodOwners.deploymentOf(pod)?.let { "${pod.metadata.namespace}/$it" })
        }
        runs.addIndex(BY_POD) { run -> listOfNotNull(run.spec?.podName?.let { "${run.metadata.namespace}/$it" }) }
    }

    /**
     * Starts the informers; the future completes once every cache is full (what /readyz reports
     * as [hasSynced]), and fails if one of them could not start (e.g. the WarmupRun CRD is missing).
     */
    @Suppress("SpreadOperator") // a one-time copy of three or four futures
    fun start(): CompletableFuture<Void> = CompletableFuture.allOf(*all.map { it.start() }.toTypedArray())

    fun stop() = all.forEach { it.stop() }

    fun hasSynced() = all.all { it.hasSynced() }

    /** Why a cache no longer follows the API server (see [Cache.problem]), or null. */
    fun problem(): String? = all.firstNotNullOfOrNull { it.problem() }

    /** The labels of [namespace] (empty when namespaces are not cached or it is unknown). */
    fun namespaceLabels(namespace: String): Map<String, String> =
        namespaces
            ?.get(namespace)
            ?.metadata
            ?.labels
            .orEmpty()

    fun podsOf(namespace: String, deployment: String): List<Pod> = pods.byIndex(BY_DEPLOYMENT, "$namespace/$deployment")

    fun runsOf(namespace: String, pod: String): List<WarmupRun> = runs.byIndex(BY_POD, "$namespace/$pod")

    companion object {
        const val BY_DEPLOYMENT = "deployment"
        const val BY_POD = "pod"

        /** Full resync re-queues every object now and then, in case an event was missed. */
        const val RESYNC_MILLIS = 10 * 60 * 1000L

        private fun <T : HasMetadata, L> scoped(op: MixedOperation<T, L, out Resource<T>>, namespace: String?) =
            if (namespace == null) op.inAnyNamespace() else op.inNamespace(namespace)

        private fun <T : HasMetadata> cacheOf(
            what: String,
            namespaces: List<String>,
            scope: (String?) -> io.fabric8.kubernetes.client.dsl.Informable<T>,
        ): Cache<T> {
            val targets: List<String?> = namespaces.ifEmpty { listOf(null) }
            return Cache(what, targets.map { scope(it).runnableInformer(RESYNC_MILLIS) })
        }
    }
}
