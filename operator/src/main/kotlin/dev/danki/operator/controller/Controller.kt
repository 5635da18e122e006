package dev.danki.operator.controller

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WorkQueue
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import org.slf4j.LoggerFactory
import java.io.IOException

/** A queued object: a Deployment or a pod, by namespace and name. */
data class WorkItem(
    val kind: Kind,
    val namespace: String,
    val name: String,
) {
    enum class Kind { DEPLOYMENT, POD }
}

/**
 * Feeds informer events into one keyed work queue and drains it with a few workers. Workers never
 * block on k6. A failed reconcile is logged with whether it looked transient, and requeued with capped
 * back-off either way: giving up on a pod would leave it gated.
 */
class Controller(
    private val caches: Caches,
    private val workers: Int,
) {
    private val log = LoggerFactory.getLogger(Controller::class.java)
    val queue = WorkQueue<WorkItem>("reconcile")
    lateinit var deployments: DeploymentReconciler
    lateinit var pods: PodReconciler
    private val threads = mutableListOf<Thread>()

    /** Registers the informer handlers; events queue work even before this replica leads. */
    fun watch() {
        caches.deployments.addHandler(handler { d: Deployment -> enqueue(WorkItem.Kind.DEPLOYMENT, d) })
        caches.pods.addHandler(handler { p: Pod -> if (PodGate.hasGate(p)) enqueue(WorkItem.Kind.POD, p) })
        caches.runs.addHandler(
            handler { r: WarmupRun ->
                r.spec?.podName?.let { queue.add(WorkItem(WorkItem.Kind.POD, r.metadata.namespace, it)) }
            },
        )
    }

    /** Starts the workers; called when this replica becomes leader (or at once without election). */
    fun start() {
        repeat(workers) { i ->
            threads +=
                Thread({ work() }, "reconcile-$i").apply {
                    isDaemon = true
                    start()
                }
        }
    }

    fun stop() = queue.shutdown()

    fun enqueuePod(
        namespace: String,
        name: String,
    ) = queue.add(WorkItem(WorkItem.Kind.POD, namespace, name))

    private fun enqueue(
        kind: WorkItem.Kind,
        obj: HasMetadata,
    ) = queue.add(WorkItem(kind, obj.metadata.namespace, obj.metadata.name))

    private fun work() {
        while (true) {
            val item = queue.take() ?: return
            try {
                val again =
                    when (item.kind) {
                        WorkItem.Kind.DEPLOYMENT -> null.also { deployments.reconcile(item.namespace, item.name) }
                        WorkItem.Kind.POD -> pods.reconcile(item.namespace, item.name)
                    }
                queue.forget(item)
                if (again != null) queue.addAfter(item, again)
            } catch (e: KubernetesClientException) {
                handleFailure(item, e, isRecoverable(e))
            } catch (e: IOException) {
                handleFailure(item, e, true)
            } catch (
                @Suppress("TooGenericExceptionCaught") e: RuntimeException,
            ) {
                // worker boundary: one bad object must not stop the others
                handleFailure(item, e, false)
            } finally {
                queue.done(item)
            }
        }
    }

    private fun handleFailure(
        item: WorkItem,
        e: Exception,
        recoverable: Boolean,
    ) {
        log
            .atWarn()
            .addKeyValue("kind", item.kind)
            .addKeyValue("namespace", item.namespace)
            .addKeyValue("name", item.name)
            .addKeyValue("recoverable", recoverable)
            .setCause(e)
            .log("reconcile failed")
        // not-found is done: the object is gone and its informer delete event will follow
        if (e is KubernetesClientException && e.code == NOT_FOUND) return
        queue.addRateLimited(item)
    }

    private fun <T : HasMetadata> handler(onEvent: (T) -> Unit) =
        object : ResourceEventHandler<T> {
            override fun onAdd(obj: T) = onEvent(obj)

            override fun onUpdate(
                oldObj: T,
                newObj: T,
            ) = onEvent(newObj)

            override fun onDelete(
                obj: T,
                deletedFinalStateUnknown: Boolean,
            ) = onEvent(obj)
        }

    companion object {
        private const val NOT_FOUND = 404
        private const val CONFLICT = 409
        private const val TOO_MANY = 429
        private const val SERVER_ERROR = 500

        /** Transient: I/O (code 0), conflicts, throttling and server errors; the rest is a bug or bad input. */
        fun isRecoverable(e: KubernetesClientException): Boolean =
            e.code == 0 || e.code == CONFLICT || e.code == TOO_MANY || e.code >= SERVER_ERROR
    }
}
