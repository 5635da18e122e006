package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.javaoperatorsdk.operator.health.InformerHealthIndicator
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache
import java.time.Instant
import kotlin.jvm.optionals.getOrNull

/**
 * A read view of one of JOSDK's informer event sources (a controller's primary cache or a secondary
 * [io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource]): one informer per
 * watched namespace, read as a single cache.
 */
class Cache<T : HasMetadata>(
    /** What the cache holds, for messages: "WarmupRuns". */
    private val what: String,
) {
    @Volatile private var bound: IndexerResourceCache<T>? = null

    private val source: IndexerResourceCache<T>
        get() = checkNotNull(bound) { "the $what cache is read before JOSDK created its informer" }

    private val health get() = bound as? InformerWrappingEventSourceHealthIndicator<*>

    /** Binds this view to its informer; JOSDK creates that when the reconciler is registered. */
    fun bind(informer: IndexerResourceCache<T>) {
        bound = informer
    }

    /** Whether the informer exists yet. */
    val isBound: Boolean get() = bound != null

    fun get(namespace: String, name: String): T? = source.get(ResourceID(name, namespace)).getOrNull()

    /** [get], or null while JOSDK has not created the informer yet: for readers that may come first. */
    fun find(namespace: String, name: String): T? = if (isBound) get(namespace, name) else null

    /** A cluster-scoped object by name. */
    fun get(name: String): T? = source.get(ResourceID(name)).getOrNull()

    fun byIndex(index: String, key: String): List<T> = source.byIndex(index, key)

    /** Every object held now, for the scrape-time gauges. */
    fun list(): List<T> = source.list().toList()

    /** Every object held now in [namespace]. */
    fun list(namespace: String): List<T> = source.list(namespace).toList()

    /** Must be called before the informers start (JOSDK: in `prepareEventSources`). */
    fun addIndex(index: String, keys: (T) -> List<String>) = source.addIndexer(index) { keys(it) }

    fun hasSynced(): Boolean = health?.informerHealthIndicators()?.values?.all { it.hasSynced() } ?: true

    companion object {
        const val CRD_HINT = " (is the resource's CRD installed?)"

        /**
         * Why [what]'s [informers] do not follow the API server, or null while they do: one that has not
         * listed once by [deadline] and is not watching (JOSDK keeps retrying it, e.g. until a missing
         * CRD is installed, while `/healthz` answers 503 so that it shows). One that listed once and is
         * reconnecting its watch (an API server restart) is no problem.
         */
        fun problemOf(
            what: String,
            informers: Collection<InformerHealthIndicator>,
            deadline: Instant,
            now: Instant,
        ): String? {
            if (now.isBefore(deadline)) return null
            val stuck = informers.filter { !it.hasSynced() && !it.isWatching }
            if (stuck.isEmpty()) return null
            val where = stuck.map { it.targetNamespace ?: "all namespaces" }.distinct().joinToString(", ")
            return "$what informer has not synced ($where)$CRD_HINT"
        }
    }
}
