package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext
import io.javaoperatorsdk.operator.health.InformerHealthIndicator
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource
import io.javaoperatorsdk.operator.processing.event.source.EventSource
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource
import java.time.Duration
import java.time.Instant
import kotlin.jvm.optionals.getOrNull

/**
 * The informer caches every part of the operator reads from: Pods (the pod controller's primaries),
 * and, as its secondary event sources, Deployments, WarmupRuns and with [namespaceOptIn] the Namespaces
 * themselves (webhook mode: a namespace label opts in all its Deployments). An event on a secondary
 * reconciles the pods it concerns. Pods are indexed by their Deployment, WarmupRuns by their pod.
 * The AOT caches' claims are a source of the Deployment controller instead ([claimSource]).
 * JOSDK runs the informers on every replica (the webhook reads them too); only the leader reconciles.
 */
class Caches(
    namespaceOptIn: Boolean = false,
    /** AOT caches are trained (`aotCache.enabled`): their CRD is installed and readable. */
    aot: Boolean = false,
) {
    val pods = Cache<Pod>("Pods")
    val deployments = Cache<Deployment>("Deployments")
    val runs = Cache<WarmupRun>("WarmupRuns")

    /** The Deployments' AOT caches (named as their Deployment), which the webhook gives new pods. */
    val aotCaches: Cache<AotCache>? = if (aot) Cache("AotCaches") else null

    /**
     * The claims that store the AOT caches (danki's, by [Keys.MANAGED_BY_DANKI]), watched for the Deployment
     * controller ([claimSource]): the webhook gives no pod a claim that is gone, which would leave it
     * Pending, and a claim that goes is made again.
     */
    val aotClaims: Cache<PersistentVolumeClaim>? = if (aot) Cache("AotClaims") else null

    /** Namespaces, for their opt-in label; cluster-scoped, null when not needed. */
    val namespaces: Cache<Namespace>? = if (namespaceOptIn) Cache("Namespaces") else null

    @Volatile private var stopped: String? = null

    private val startedAt = Instant.now()

    /**
     * Creates the pod controller's secondary sources and indexes its primary cache; JOSDK calls this
     * (through the pod reconciler) once, before any informer starts.
     */
    fun eventSources(context: EventSourceContext<Pod>): List<EventSource<*, Pod>> {
        pods.bind(context.primaryCache)
        pods.addIndex(BY_DEPLOYMENT) { pod ->
            listOfNotNull(PodOwners.deploymentOf(pod)?.let { ObjectKeys.of(pod.metadata.namespace, it) })
        }
        val deploymentSource =
            secondary(context, Deployment::class.java, "deployments") { d ->
                ids(podsOf(d.metadata.namespace, d.metadata.name))
            }
        val runSource =
            secondary(context, WarmupRun::class.java, "warmupruns") { run ->
                setOfNotNull(run.spec?.podName?.let { ResourceID(it, run.metadata.namespace) })
            }
        // read by the webhook and the training; a change concerns no pod's reconcile
        val aotSource =
            aotCaches?.let { cache ->
                secondary(context, AotCache::class.java, "aotcaches") { emptySet() }.also(cache::bind)
            }
        deployments.bind(deploymentSource)
        runs.bind(runSource)
        runs.addIndex(
            BY_POD,
        ) { run -> listOfNotNull(run.spec?.podName?.let { ObjectKeys.of(run.metadata.namespace, it) }) }
        // a namespace's opt-in label changes the switch of every Deployment in it, and so of their pods
        val namespaceSource =
            namespaces?.let { cache ->
                secondary(context, Namespace::class.java, "namespaces", allNamespaces = true) { n ->
                    ids(pods.list(n.metadata.name))
                }.also(cache::bind)
            }
        return listOfNotNull(deploymentSource, runSource, aotSource, namespaceSource)
    }

    /**
     * The claims' informer, a source of the Deployment controller: a claim that goes (deleted by hand,
     * its cache with it) reconciles the Deployment it stores the cache of, which makes it again and
     * retrains then, not at the Deployment's next change. Null without AOT caches.
     */
    fun claimSource(context: EventSourceContext<Deployment>): EventSource<*, Deployment>? =
        aotClaims?.let { cache ->
            secondary(
                context,
                PersistentVolumeClaim::class.java,
                "aotclaims",
                labels = Keys.MANAGED_BY_DANKI,
            ) { claim ->
                setOfNotNull(deploymentOfClaim(claim))
            }.also(cache::bind)
        }

    /** Every cache has listed its objects once: what `/readyz` reports. */
    fun hasSynced() = all().all { it.isBound && it.hasSynced() }

    /**
     * Why an informer does not follow the API server, or null: one fabric8 stopped, or one that has not
     * listed once [SYNC_GRACE] after start-up. [unhealthy] is JOSDK's view of every controller's
     * informers (`RuntimeInfo.unhealthyInformerWrappingEventSourceHealthIndicator`): controller name ->
     * event source name -> its health. It covers the informers no [Cache] reads too, such as the
     * Deployment controller's own.
     */
    fun problem(
        unhealthy: Map<String, Map<String, InformerWrappingEventSourceHealthIndicator<*>>>,
        now: Instant = Instant.now(),
    ): String? =
        stopped ?: unhealthy.entries.firstNotNullOfOrNull { (controller, sources) ->
            sources.entries.firstNotNullOfOrNull { (source, health) ->
                val what = (health as? EventSource<*, *>)?.resourceType()?.simpleName ?: source
                Cache.problemOf(
                    "$what (controller $controller)",
                    health.informerHealthIndicators().values,
                    startedAt.plus(SYNC_GRACE),
                    now,
                )
            }
        }

    /** JOSDK's informer-stopped hook: fabric8 stops an informer only on an error it cannot retry. */
    fun informerStopped(informer: SharedIndexInformer<*>, error: Throwable?) {
        if (error == null) return
        val what = informer.apiTypeClass.simpleName
        stopped = "$what informer stopped: ${error.message?.let(Messages::quote) ?: error.javaClass.simpleName}"
    }

    /** The labels of [namespace] (empty when namespaces are not cached or it is unknown). */
    fun namespaceLabels(namespace: String): Map<String, String> =
        namespaces
            ?.find(namespace)
            ?.metadata
            ?.labels
            .orEmpty()

    fun podsOf(namespace: String, deployment: String): List<Pod> =
        pods.byIndex(BY_DEPLOYMENT, ObjectKeys.of(namespace, deployment))

    fun runsOf(namespace: String, pod: String): List<WarmupRun> = runs.byIndex(BY_POD, ObjectKeys.of(namespace, pod))

    private fun all(): List<Cache<out HasMetadata>> =
        listOfNotNull(pods, deployments, runs, aotCaches, aotClaims, namespaces)

    companion object {
        const val BY_DEPLOYMENT = "deployment"
        const val BY_POD = "pod"

        private fun ids(pods: List<Pod>): Set<ResourceID> = pods.map(ResourceID::fromResource).toSet()

        /** The Deployment whose cache [claim] stores: its controller is that Deployment's AotCache, named as it. */
        fun deploymentOfClaim(claim: PersistentVolumeClaim): ResourceID? =
            claim.metadata.ownerReferences
                ?.firstOrNull {
                    it.controller == true && it.kind == Keys.AOT_CACHE_KIND &&
                        it.apiVersion == Keys.API_VERSION
                }?.let { ResourceID(it.name, claim.metadata.namespace) }

        /** How long an informer may take to list once before `/healthz` reports it. */
        val SYNC_GRACE: Duration = Duration.ofSeconds(15)

        private fun <R : HasMetadata, P : HasMetadata> secondary(
            context: EventSourceContext<P>,
            type: Class<R>,
            name: String,
            allNamespaces: Boolean = false,
            /** A label selector: only these objects are cached. */
            labels: String? = null,
            toPrimaries: (R) -> Set<ResourceID>,
        ): InformerEventSource<R, P> {
            val builder =
                InformerEventSourceConfiguration
                    .from(type, context.primaryResourceClass)
                    .withName(name)
                    .withSecondaryToPrimaryMapper { r -> toPrimaries(r) }
            if (allNamespaces) builder.withWatchAllNamespaces() else builder.withNamespacesInheritedFromController()
            labels?.let { builder.withLabelSelector(it) }
            return InformerEventSource(builder.build(), context)
        }
    }
}

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

    /**
     * Whether JOSDK has started the informer: before that, reading it throws inside JOSDK (its temporary
     * cache is made on start), and the webhook serves (its warm-up) while the informers start.
     */
    private val isStarted: Boolean
        get() = bound?.let { (it as? AbstractEventSource<*, *>)?.isRunning ?: true } ?: false

    /** [get], or null while JOSDK has not created or started the informer yet: for readers that may come first. */
    fun find(namespace: String, name: String): T? = if (isStarted) get(namespace, name) else null

    /** A cluster-scoped object by name, as [find]. */
    fun find(name: String): T? = if (isStarted) get(name) else null

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
