package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.status.PodPhases
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

/**
 * Receives the pods bound to this node from an informer and keeps one [PodWorker] per pod:
 * starts it when a pod appears, passes every update on (readiness gates change Ready), and tears
 * the pod down when it is deleted.
 */
class PodSupervisor(
    private val services: PodServices,
    private val scope: CoroutineScope,
) : ResourceEventHandler<Pod> {
    private val log = LoggerFactory.getLogger(PodSupervisor::class.java)
    private val workers = ConcurrentHashMap<String, PodWorker>()

    /** Pods being torn down (by uid), with the grace period their teardown honours now. */
    private val stopping = ConcurrentHashMap<String, Duration>()

    override fun onAdd(pod: Pod) = onUpdate(null, pod)

    override fun onUpdate(old: Pod?, pod: Pod) {
        if (pod.spec?.nodeName != services.config.nodeName) return
        val uid = pod.metadata.uid
        val deleting = pod.metadata.deletionTimestamp != null
        val worker = workers[uid]
        when {
            worker != null -> {
                worker.update(pod)
                if (deleting) stop(uid, worker, TerminationGrace.forDeletion(pod), pod)
            }

            // Nothing runs for it here (the agent restarted meanwhile): just finish the deletion.
            deleting -> {
                if (stopping.putIfAbsent(uid, Duration.ZERO) == null) {
                    scope.launch {
                        try {
                            completeDeletion(pod)
                        } finally {
                            stopping.remove(uid)
                        }
                    }
                }
            }

            // Ran to completion before an agent restart: the kubelet would not run it again either.
            pod.status?.phase == PodPhases.SUCCEEDED || pod.status?.phase == PodPhases.FAILED -> {
                Unit
            }

            else -> {
                log.infoWith("starting pod", "namespace" to pod.metadata.namespace, "pod" to pod.metadata.name)
                val created = PodWorker(pod, services)
                workers[uid] = created
                created.start(scope)
            }
        }
    }

    override fun onDelete(pod: Pod, deletedFinalStateUnknown: Boolean) {
        val uid = pod.metadata.uid
        // Removed from the API without our teardown (force delete): stop at once.
        workers[uid]?.let { stop(uid, it, Duration.ZERO, null) }
    }

    /**
     * Tears the pod down within [grace], then completes its deletion in the API. A teardown
     * already under way is only hurried, when [grace] is shorter than the one it honours.
     */
    private fun stop(uid: String, worker: PodWorker, grace: Duration, completeDeletionOf: Pod?) {
        val current = stopping.putIfAbsent(uid, grace)
        if (current != null) {
            if (grace < current && stopping.replace(uid, current, grace)) scope.launch { worker.hurry(grace) }
            return
        }
        scope.launch {
            try {
                worker.stop(grace)
                completeDeletionOf?.let { completeDeletion(it) }
            } finally {
                workers.remove(uid)
                stopping.remove(uid)
            }
        }
    }

    /** Deletes the pod with grace period 0, retrying with back-off until the API server takes it. */
    private suspend fun completeDeletion(pod: Pod) {
        var wait = DELETE_RETRY_FIRST
        while (!services.status.completeDeletion(pod)) {
            delay(wait.toMillis())
            wait = (wait.multipliedBy(2)).coerceAtMost(DELETE_RETRY_MAX)
        }
    }

    /** Stops every pod (the agent is shutting down), giving each at most [maxGrace]. Pods stay in the API. */
    suspend fun stopAll(maxGrace: Duration) =
        coroutineScope {
            workers.values.forEach { worker ->
                launch {
                    worker.stop(TerminationGrace.forDeletion(worker.pod).coerceAtMost(maxGrace), agentStopping = true)
                }
            }
        }

    private companion object {
        /** A failed deletion is tried again after 1 s, 2 s, 4 s ... every 30 s at most, not at the 5-min resync. */
        val DELETE_RETRY_FIRST: Duration = Duration.ofSeconds(1)
        val DELETE_RETRY_MAX: Duration = Duration.ofSeconds(30)
    }
}
