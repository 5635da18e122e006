package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import java.util.concurrent.CompletableFuture
import java.util.function.Function

/** One informer per watched namespace (or one for all namespaces), read as a single cache. */
class Cache<T : HasMetadata>(
    /** What the cache holds, for messages: "WarmupRuns". */
    private val what: String,
    private val informers: List<SharedIndexInformer<T>>,
) {
    @Volatile private var failure: Throwable? = null

    fun get(namespace: String, name: String): T? =
        informers.firstNotNullOfOrNull { it.indexer.getByKey("$namespace/$name") }

    /** A cluster-scoped object by name. */
    fun get(name: String): T? = informers.firstNotNullOfOrNull { it.indexer.getByKey(name) }

    fun byIndex(index: String, key: String): List<T> = informers.flatMap { it.indexer.byIndex(index, key) }

    fun hasSynced(): Boolean = informers.all { it.hasSynced() }

    /** Every object held now, for the scrape-time gauges. */
    fun list(): List<T> = informers.flatMap { it.indexer.list() }

    fun addHandler(handler: ResourceEventHandler<T>) = informers.forEach { it.addEventHandler(handler) }

    fun addIndex(index: String, keys: (T) -> List<String>) =
        informers.forEach { it.addIndexers(mapOf(index to Function<T, List<String>> { t -> keys(t) })) }

    /** Starts every informer; completes once each has listed its objects and watches. */
    @Suppress("SpreadOperator") // a one-time copy of a handful of futures
    fun start(): CompletableFuture<Void> {
        val started = informers.map { it.start().toCompletableFuture() }
        // fabric8 stops an informer whose first list fails (and one whose watch gives up): it then
        // serves a stale or empty cache for good, so that is remembered for the health check
        informers.forEach { informer ->
            informer.stopped().whenComplete { _, error -> if (error != null) failure = error }
        }
        return CompletableFuture.allOf(*started.toTypedArray())
    }

    /** Why this cache stopped following the API server, or null while it does. */
    fun problem(): String? =
        failure?.let { error ->
            val api = generateSequence(error) { it.cause }.filterIsInstance<KubernetesClientException>().firstOrNull()
            val missing = api?.code == NOT_FOUND
            val hint = if (missing) " (is the resource's CRD installed?)" else ""
            "$what informer stopped: ${error.message?.let(Messages::quote) ?: error.javaClass.simpleName}$hint"
        }

    fun stop() = informers.forEach { it.stop() }

    private companion object {
        const val NOT_FOUND = 404
    }
}
