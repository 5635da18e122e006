package dev.danki.cluster.pod

import dev.danki.cluster.status.PodStatusPatch
import dev.danki.cluster.status.StatusComparison
import io.fabric8.kubernetes.api.model.Pod

/**
 * Writes a pod's status only when it differs from what the API server holds, as the kubelet's
 * status manager does. The informer's copy of the pod lags behind the agent's own writes: until
 * it shows a version other than the one a write was computed from, the pod that write returned
 * stands in for it, so a re-check right after a write does not send the same status again.
 */
class PodStatusSync(
    /** Sends a patch body; returns the pod as the API server then has it, or null ([PodStatusWriter.patch]). */
    private val send: (Pod, String) -> Pod?,
) {
    /** The API server's answer to the last write, and the resourceVersion that write was computed from. */
    private var written: Pod? = null
    private var writtenOver: String? = null

    /** The freshest pod known: [informed] (the informer's), unless it has not caught up with the last write. */
    fun current(informed: Pod): Pod {
        val answer = written
        return if (answer != null && informed.metadata.resourceVersion == writtenOver) answer else informed
    }

    /** Writes [patch] unless [pod] (from [current]) already shows it; true when a write was sent and taken. */
    fun write(pod: Pod, patch: PodStatusPatch): Boolean {
        if (StatusComparison.holds(pod, patch)) return false
        val answer = send(pod, patch.toJson()) ?: return false
        written = answer
        writtenOver = pod.metadata.resourceVersion
        return true
    }
}
