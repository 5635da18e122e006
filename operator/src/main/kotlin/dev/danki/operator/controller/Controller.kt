package dev.danki.operator.controller

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import io.fabric8.kubernetes.client.informers.cache.Cache.NAMESPACE_INDEX
import org.slf4j.LoggerFactory
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CompletionStage

/**
 * Feeds informer events into one keyed work queue and drains it with a few workers, once the caches
 * they read have synced. Workers never block on k6. A failed reconcile is logged with whether it
 * looked transient, and requeued with capped back-off either way: giving up on a pod would leave it
 * gated. Only the reconciled object being gone ends its retries. A worker outlives anything one
 * reconcile throws (a cancellation included); should one end anyway, [problem] says so, and the
 * liveness probe restarts the replica rather than leave its share of the queue undrained.
 */
class Controller(
    private val workers: Int,
    /** Handles one item; returns when to look again, or null. */
    private val reconcile: (WorkItem) -> Duration?,
    /** Whether the item's object is still in the informer cache. */
    private val exists: (WorkItem) -> Boolean,
) {
    private val log = LoggerFactory.getLogger(Controller::class.java)
    val queue = WorkQueue<WorkItem>("reconcile")
    private val threads = mutableListOf<Thread>()

    /** True once the workers run. */
    val started: Boolean get() = synchronized(threads) { threads.isNotEmpty() }

    @Volatile private var syncFailure: Throwable? = null

    @Volatile private var stopping = false

    /** Why this controller can no longer do its work (caches never synced, a worker ended), or null. */
    fun problem(): String? {
        syncFailure?.let { return "informer caches did not sync: ${it.message}" }
        if (stopping) return null
        val ended = synchronized(threads) { threads.filterNot { it.isAlive }.map { it.name } }
        return if (ended.isEmpty()) null else "reconcile workers ended: ${ended.joinToString(", ")}"
    }

    /** Registers the informer handlers; events queue work even before this replica leads. */
    fun watch(caches: Caches) {
        caches.deployments.addHandler(handler { d: Deployment -> enqueue(WorkItem.Kind.DEPLOYMENT, d) })
        caches.pods.addHandler(handler { p: Pod -> if (PodGate.hasGate(p)) enqueue(WorkItem.Kind.POD, p) })
        caches.runs.addHandler(
            handler { r: WarmupRun ->
                r.spec?.podName?.let { queue.add(WorkItem(WorkItem.Kind.POD, r.metadata.namespace, it)) }
            },
        )
        // a namespace's opt-in label changes the switch of every Deployment in it (and so of their pods)
        caches.namespaces?.addHandler(
            handler { n: Namespace ->
                caches.deployments.byIndex(NAMESPACE_INDEX, n.metadata.name).forEach {
                    enqueue(WorkItem.Kind.DEPLOYMENT, it)
                }
            },
        )
    }

    /**
     * Starts the workers once [synced] completes (the informer caches are full): a pod reconciled
     * before its Deployment or its WarmupRun is in the cache would be decided on a wrong picture.
     */
    fun startWhen(synced: CompletionStage<*>) {
        synced.whenComplete { _, error ->
            if (error != null) {
                syncFailure = error
                log.atError().setCause(error).log("informer caches did not sync: not reconciling")
            } else {
                start()
            }
        }
    }

    private fun start() =
        synchronized(threads) {
            if (threads.isNotEmpty()) return
            repeat(workers) { i ->
                threads +=
                    Thread({ work() }, "reconcile-$i").apply {
                        isDaemon = true
                        start()
                    }
            }
        }

    fun stop() {
        stopping = true
        queue.shutdown()
    }

    fun enqueuePod(namespace: String, name: String) = queue.add(WorkItem(WorkItem.Kind.POD, namespace, name))

    /** Queues a pod after a back-off that grows with each consecutive failure (e.g. a crashed warm-up). */
    fun requeuePodLater(namespace: String, name: String) =
        queue.addRateLimited(WorkItem(WorkItem.Kind.POD, namespace, name))

    private fun enqueue(kind: WorkItem.Kind, obj: HasMetadata) =
        queue.add(WorkItem(kind, obj.metadata.namespace, obj.metadata.name))

    private fun work() {
        while (true) {
            val item = queue.take() ?: return
            try {
                val again = reconcile(item)
                queue.forget(item)
                if (again != null) queue.addAfter(item, again)
            } catch (e: KubernetesClientException) {
                handleFailure(item, e, isRecoverable(e))
            } catch (e: IOException) {
                handleFailure(item, e, true)
            } catch (
                @Suppress("TooGenericExceptionCaught") e: Exception,
            ) {
                // worker boundary: one bad object (or a cancelled future inside it) must not stop the others
                handleFailure(item, e, false)
            } finally {
                queue.done(item)
            }
        }
    }

    private fun handleFailure(item: WorkItem, e: Exception, recoverable: Boolean) {
        val gone = isDone(e, exists(item))
        log
            .atWarn()
            .addKeyValue("kind", item.kind)
            .addKeyValue("namespace", item.namespace)
            .addKeyValue("name", item.name)
            .addKeyValue("recoverable", recoverable)
            .addKeyValue("objectGone", gone)
            .setCause(e)
            .log("reconcile failed")
        if (!gone) queue.addRateLimited(item)
    }

    private fun <T : HasMetadata> handler(onEvent: (T) -> Unit) =
        object : ResourceEventHandler<T> {
            override fun onAdd(obj: T) = onEvent(obj)

            override fun onUpdate(oldObj: T, newObj: T) = onEvent(newObj)

            override fun onDelete(obj: T, deletedFinalStateUnknown: Boolean) = onEvent(obj)
        }

    companion object {
        private const val NOT_FOUND = 404
        private const val CONFLICT = 409
        private const val TOO_MANY = 429
        private const val SERVER_ERROR = 500

        /** Transient: I/O (code 0), conflicts, throttling and server errors; the rest is a bug or bad input. */
        fun isRecoverable(e: KubernetesClientException): Boolean =
            e.code == 0 || e.code == CONFLICT || e.code == TOO_MANY || e.code >= SERVER_ERROR

        /**
         * A failed reconcile is done only when its own object is gone: a 404 from a write to another
         * object (a WarmupRun deleted meanwhile, a missing CRD) must be retried, or the pod stays gated.
         */
        fun isDone(e: Exception, objectExists: Boolean): Boolean =
            e is KubernetesClientException && e.code == NOT_FOUND && !objectExists
    }
}
