package dev.danki.operator.e2e.badinput

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * When the test first saw each pod of a namespace ContainersReady, decided (a `danki.dev/warmed`
 * condition) and Ready: an informer's clock, finer than the conditions' one-second timestamps.
 */
class PodTimes(
    client: KubernetesClient,
    namespace: String,
) : AutoCloseable {
    private class Seen(
        var containersReady: Instant? = null,
        var decided: Instant? = null,
        var ready: Instant? = null,
    )

    private val seen = ConcurrentHashMap<String, Seen>()
    private val informer: SharedIndexInformer<Pod> =
        client.pods().inNamespace(namespace).inform(
            object : ResourceEventHandler<Pod> {
                override fun onAdd(pod: Pod) = record(pod)

                override fun onUpdate(old: Pod, pod: Pod) = record(pod)

                override fun onDelete(pod: Pod, unknown: Boolean) = Unit
            },
        )

    private fun record(pod: Pod) {
        val now = Instant.now()
        val conditions = pod.status?.conditions.orEmpty()
        val times = seen.computeIfAbsent(pod.metadata.name) { Seen() }
        synchronized(times) {
            val containersReady = conditions.any { it.type == Keys.CONTAINERS_READY && it.status == "True" }
            if (times.containersReady == null && containersReady) times.containersReady = now
            if (times.decided == null && conditions.any { it.type == Keys.GATE_CONDITION }) times.decided = now
            if (times.ready == null && conditions.any { it.type == "Ready" && it.status == "True" }) times.ready = now
        }
    }

    /** ContainersReady to Ready, in seconds (null: not Ready yet). */
    fun gatedSeconds(pod: String): Double? = seen[pod]?.let { between(it.containersReady, it.ready) }

    /** ContainersReady to danki's first gate condition, in seconds; negative when danki decided first. */
    fun decidedSeconds(pod: String): Double? = seen[pod]?.let { between(it.containersReady, it.decided) }

    private fun between(from: Instant?, to: Instant?): Double? =
        if (from == null || to == null) null else Duration.between(from, to).toMillis() / MILLIS

    override fun close() = informer.close()

    private companion object {
        const val MILLIS = 1000.0
    }
}
