package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Pod
import java.time.Duration
import java.time.Instant

/**
 * `spec.activeDeadlineSeconds`, as the kubelet's active-deadline handler applies it: counted from
 * the pod's `status.startTime`; once past, the pod is killed and ends Failed, reason DeadlineExceeded.
 */
object ActiveDeadline {
    const val REASON = "DeadlineExceeded"
    const val MESSAGE = "Pod was active on the node longer than the specified deadline"

    /**
     * Time left before [pod]'s deadline at [now] (zero or less: exceeded), or null when it has none.
     * [startedHere] stands in for `status.startTime` until the API server has one.
     */
    fun remaining(pod: Pod, startedHere: Instant, now: Instant): Duration? {
        val seconds = pod.spec?.activeDeadlineSeconds ?: return null
        val started = pod.status?.startTime?.let(Instant::parse) ?: startedHere
        return Duration.between(now, started.plusSeconds(seconds))
    }
}
