package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.status.PodPhases
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.coroutineScope
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
    private val stopping = ConcurrentHashMap.newKeySet<String>()

    override fun onAdd(pod: Pod) = onUpdate(null, pod)

    override fun onUpdate(
        old: Pod?,
        pod: Pod,
    ) {
        if (pod.spec?.nodeName != services.config.nodeName) return
        val uid = pod.metadata.uid
        val deleting = pod.metadata.deletionTimestamp != null
        val worker = workers[uid]
        when {
            worker != null -> {
                worker.update(pod)
                if (deleting) stop(uid, worker, graceOf(pod), pod)
            }

            // Nothing runs for it here (the agent restarted meanwhile): just finish the deletion.
            deleting -> {
                scope.launch { services.status.completeDeletion(pod) }
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

    override fun onDelete(
        pod: Pod,
        deletedFinalStateUnknown: Boolean,
    ) {
        val uid = pod.metadata.uid
        // Removed from the API without our teardown (force delete): stop at once.
        workers[uid]?.let { stop(uid, it, Duration.ZERO, null) }
    }

    private fun stop(
        uid: String,
        worker: PodWorker,
        grace: Duration,
        completeDeletionOf: Pod?,
    ) {
        if (!stopping.add(uid)) return
        scope.launch {
            try {
                worker.stop(grace)
                completeDeletionOf?.let { services.status.completeDeletion(it) }
            } finally {
                workers.remove(uid)
                stopping.remove(uid)
            }
        }
    }

    /** Stops every pod (the agent is shutting down), giving each at most [maxGrace]. Pods stay in the API. */
    suspend fun stopAll(maxGrace: Duration) =
        coroutineScope {
            workers.values.forEach { worker ->
                launch {
                    worker.stop(graceOf(worker.pod).coerceAtMost(maxGrace), agentStopping = true)
                }
            }
        }

    private fun graceOf(pod: Pod?): Duration {
        val seconds =
            pod?.metadata?.deletionGracePeriodSeconds
                ?: pod?.spec?.terminationGracePeriodSeconds
                ?: DEFAULT_GRACE_SECONDS
        return Duration.ofSeconds(seconds)
    }

    private companion object {
        const val DEFAULT_GRACE_SECONDS = 30L
    }
}
