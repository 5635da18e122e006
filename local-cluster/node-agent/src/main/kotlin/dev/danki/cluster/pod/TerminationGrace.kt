package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Probe
import java.time.Duration

/** How long a container gets between SIGTERM and SIGKILL, chosen as the kubelet chooses it. */
object TerminationGrace {
    /** The API's default for `terminationGracePeriodSeconds`. */
    const val DEFAULT_SECONDS = 30L

    /** On deletion: the deletion's own grace period (`kubectl delete --grace-period`), else the pod's. */
    fun forDeletion(pod: Pod?): Duration =
        Duration.ofSeconds(
            pod?.metadata?.deletionGracePeriodSeconds
                ?: pod?.spec?.terminationGracePeriodSeconds
                ?: DEFAULT_SECONDS,
        )

    /** Past `activeDeadlineSeconds`: the kubelet kills the pod with its own grace period. */
    fun forActiveDeadline(pod: Pod): Duration {
        val seconds = pod.spec?.terminationGracePeriodSeconds ?: DEFAULT_SECONDS
        return Duration.ofSeconds(seconds)
    }

    /** After a failed liveness or startup probe: the probe's `terminationGracePeriodSeconds`, else the pod's. */
    fun forProbeKill(pod: Pod, probe: Probe): Duration =
        Duration.ofSeconds(
            probe.terminationGracePeriodSeconds
                ?: pod.spec?.terminationGracePeriodSeconds
                ?: DEFAULT_SECONDS,
        )
}
