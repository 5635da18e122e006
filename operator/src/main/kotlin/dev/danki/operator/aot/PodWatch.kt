package dev.danki.operator.aot

import dev.danki.operator.gate.PodGate
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import java.time.Duration
import java.time.Instant

/**
 * Waits on one pod of a training by reading it from the API server once a second: a training makes
 * two pods a Deployment and is rare, so a watch of its own would cost more than it saves.
 */
class PodWatch(
    private val client: KubernetesClient,
    private val namespace: String,
    private val name: String,
) {
    /** The pod once [done] holds for it (or it is gone: null), or the last seen one at [deadline]. */
    fun until(deadline: Instant, done: (Pod?) -> Boolean): Pod? {
        while (true) {
            val pod = get()
            if (done(pod) || !Instant.now().isBefore(deadline)) return pod
            Thread.sleep(POLL.toMillis())
        }
    }

    fun get(): Pod? =
        client
            .pods()
            .inNamespace(namespace)
            .withName(name)
            .get()

    /** Deletes the pod with its own grace period and waits until it is gone, at most until [deadline]. */
    fun deleteAndWait(deadline: Instant): Boolean {
        client
            .pods()
            .inNamespace(namespace)
            .withName(name)
            .delete()
        return until(deadline) { it == null } == null
    }

    companion object {
        val POLL: Duration = Duration.ofSeconds(1)

        fun ready(pod: Pod?): Boolean = pod != null && PodGate.containersReady(pod) != null

        /** The pod's phase is final, or one of its containers ended (restartPolicy Never: it stays ended). */
        fun ended(pod: Pod?): Boolean =
            pod == null || pod.status?.phase in setOf("Succeeded", "Failed") ||
                pod.status
                    ?.containerStatuses
                    .orEmpty()
                    .any { it.state?.terminated != null }

        fun terminationMessage(pod: Pod?, container: String): String? =
            pod
                ?.status
                ?.containerStatuses
                .orEmpty()
                .firstOrNull { it.name == container }
                ?.state
                ?.terminated
                ?.message
    }
}
