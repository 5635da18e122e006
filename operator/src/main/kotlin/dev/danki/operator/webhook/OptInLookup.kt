package dev.danki.operator.webhook

import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.ArrayBlockingQueue
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * Finds, for a pod being admitted, its Deployment and its namespace's labels: what decides whether the
 * pod gets the gate.
 *
 * The informer cache answers when it shows the Deployment opted in. Otherwise it may simply not have it
 * yet: `kubectl apply` of a new Deployment, a namespace labelled a moment before, or an opt-in and a
 * scale-up in the same second all create pods before the cache has heard. A pod admitted then would
 * serve cold, so the API server is asked, within [budget]. A stale cache that says "opted in" when the
 * user has just opted out costs at most a gated pod that the pod reconciler releases at once.
 *
 * A read that fails or does not answer within [budget] lets the pod through without the gate
 * (counted, logged, and then reported as a missed pod): danki never holds up a pod's creation.
 *
 * The reads run on threads of their own, and the review waits for them without a thread ([findAsync]):
 * a burst of pods of Deployments the cache does not have cannot hold up the pods it does. The pods of
 * one Deployment share one read while it is under way, so a burst of them costs one GET, not one each.
 */
class OptInLookup(
    private val cache: Reads,
    private val api: Reads,
    private val metrics: WarmupMetrics,
    /** Namespaces can opt in by label (webhook mode caches them); otherwise only the annotation counts. */
    private val namespaceOptIn: Boolean,
    /** How long a read past the cache may take (WebhookSettings.readBudget). */
    private val budget: Duration = DEFAULT_BUDGET,
) {
    /** Reads of one source: the cache or the API server (null: not found). */
    interface Reads {
        fun deployment(namespace: String, name: String): Deployment?

        fun namespaceLabels(namespace: String): Map<String, String>?
    }

    /** What the lookup found, and [how] (one of WarmupMetrics' LOOKUP_ values). */
    data class Found(
        val deployment: Deployment?,
        val namespaceLabels: Map<String, String>,
        val how: String,
    )

    private val log = LoggerFactory.getLogger(OptInLookup::class.java)

    /**
     * A few threads: reads past the cache are rare on a settled cluster. A full queue means the API
     * server is not keeping up; the pod is then let through at once rather than queued past its budget.
     */
    private val reads =
        ThreadPoolExecutor(READ_THREADS, READ_THREADS, 1, TimeUnit.MINUTES, ArrayBlockingQueue(READ_QUEUE)) { r ->
            Thread(r, "danki-webhook-read").apply { isDaemon = true }
        }.apply { allowCoreThreadTimeOut(true) }

    /** Reads past the cache under way, by `namespace/name`: every review that needs one waits on the same. */
    private val inFlight = ConcurrentHashMap<String, CompletableFuture<Found>>()

    /** [findAsync], waited for on the calling thread. */
    fun find(namespace: String, deployment: String): Found = findAsync(namespace, deployment).join()

    /**
     * What decides the pod's gate: at once from the cache when it shows the Deployment opted in, else once
     * the read past the cache answers or [budget] has passed (never completed exceptionally).
     */
    fun findAsync(namespace: String, deployment: String): CompletableFuture<Found> {
        cachedOptIn(namespace, deployment)?.let { return CompletableFuture.completedFuture(it) }
        val cachedLabels = cache.namespaceLabels(namespace).orEmpty()
        val read =
            try {
                sharedRead(namespace, deployment, cachedLabels)
            } catch (e: RejectedExecutionException) {
                // the read threads and their queue are full: the API server is not keeping up
                return CompletableFuture.completedFuture(failed(namespace, deployment, cachedLabels, e))
            }
        // this review's own budget, on a copy: orTimeout completes its receiver, which other reviews share;
        // the read itself ends at the client's own timeout
        return read
            .thenApply { it }
            .orTimeout(budget.toMillis(), TimeUnit.MILLISECONDS)
            .handle { fresh, error ->
                if (error != null) {
                    failed(namespace, deployment, cachedLabels, (error as? CompletionException)?.cause ?: error)
                } else {
                    metrics.webhookRead(
                        if (fresh.deployment == null) WarmupMetrics.READ_NOT_FOUND else WarmupMetrics.READ_FOUND,
                    )
                    fresh
                }
            }
    }

    /** The read of [name] under way, or a new one on the read threads; throws when they cannot take it. */
    private fun sharedRead(
        namespace: String,
        name: String,
        cachedLabels: Map<String, String>,
    ): CompletableFuture<Found> {
        val key = "$namespace/$name"
        val read =
            inFlight.computeIfAbsent(key) {
                CompletableFuture.supplyAsync({ readThrough(namespace, name, cachedLabels) }, reads)
            }
        // a read that ended is not reused: the next pod asks again, and sees what changed since
        read.whenComplete { _, _ -> inFlight.remove(key, read) }
        return read
    }

    private fun failed(
        namespace: String,
        deployment: String,
        cachedLabels: Map<String, String>,
        cause: Throwable,
    ): Found {
        metrics.webhookRead(WarmupMetrics.READ_FAILED)
        // one line each, no stack trace: a burst of pods of new Deployments makes many of these at once
        val root = (cause as? CompletionException)?.cause ?: cause
        val why =
            when (root) {
                is RejectedExecutionException -> "$READ_THREADS reads past the cache under way and $READ_QUEUE waiting"
                is TimeoutException -> "no answer within the budget"
                else -> root.message ?: root.javaClass.simpleName
            }
        log
            .atWarn()
            .addKeyValue("namespace", namespace)
            .addKeyValue("deployment", deployment)
            .addKeyValue("budgetMillis", budget.toMillis())
            .addKeyValue("why", why)
            .log("could not read the pod's Deployment in time; the cache alone decides its gate")
        // the informer may have caught up while the read waited: a second look costs nothing
        return cachedOptIn(namespace, deployment) ?: Found(null, cachedLabels, WarmupMetrics.LOOKUP_FAILED)
    }

    /** What the cache has, when it shows the Deployment opted in. */
    private fun cachedOptIn(namespace: String, deployment: String): Found? {
        val labels = cache.namespaceLabels(namespace).orEmpty()
        val cached = cache.deployment(namespace, deployment) ?: return null
        return Found(cached, labels, WarmupMetrics.LOOKUP_CACHE)
            .takeIf { WarmupSwitch.of(cached, labels) == WarmupSwitch.ENABLED }
    }

    fun close() {
        reads.shutdownNow()
    }

    private fun readThrough(namespace: String, name: String, cachedLabels: Map<String, String>): Found {
        val deployment = api.deployment(namespace, name) ?: return Found(null, cachedLabels, WarmupMetrics.LOOKUP_API)
        // the namespace's label counts only without the Deployment's own annotation, and only when unseen
        val needsNamespace =
            namespaceOptIn &&
                Keys.Annotations.WARMUP !in deployment.metadata.annotations.orEmpty() &&
                cachedLabels[Keys.NAMESPACE_OPT_IN_LABEL] != Keys.WARMUP_LABEL_VALUE
        val labels = if (needsNamespace) api.namespaceLabels(namespace).orEmpty() else cachedLabels
        return Found(deployment, labels, WarmupMetrics.LOOKUP_API)
    }

    companion object {
        /** Half the chart's default 10 s webhook timeout, as WebhookSettings.readBudget. */
        val DEFAULT_BUDGET: Duration = Duration.ofSeconds(5)
        private const val READ_THREADS = 8
        private const val READ_QUEUE = 64
    }
}

/** The two sources [OptInLookup] reads: the operator's informer caches, and the API server itself. */
object OptInReads {
    fun cache(caches: Caches): OptInLookup.Reads =
        object : OptInLookup.Reads {
            // an informer not started yet is a miss: the webhook's warm-up comes before it
            override fun deployment(namespace: String, name: String): Deployment? =
                caches.deployments.find(namespace, name)

            override fun namespaceLabels(namespace: String): Map<String, String> = caches.namespaceLabels(namespace)
        }

    /** Plain GETs: served from etcd, so as fresh as the write that made the pod's ReplicaSet. */
    fun api(client: KubernetesClient): OptInLookup.Reads =
        object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String): Deployment? =
                client
                    .apps()
                    .deployments()
                    .inNamespace(namespace)
                    .withName(name)
                    .get()

            override fun namespaceLabels(namespace: String): Map<String, String>? =
                client
                    .namespaces()
                    .withName(namespace)
                    .get()
                    ?.metadata
                    ?.labels
        }
}
