package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.ContainerStatus
import java.time.Duration

/** When an exited container starts again, and how long it waits first, as the kubelet decides. */
object RestartRules {
    /** Kubelet's crash-loop back-off: 10 s doubling up to 5 min. */
    val INITIAL_BACKOFF: Duration = Duration.ofSeconds(10)
    val MAX_BACKOFF: Duration = Duration.ofMinutes(5)

    /** A container that ran this long before exiting starts its back-off over. */
    val BACKOFF_RESET_AFTER: Duration = Duration.ofMinutes(10)

    /** Whether [restartPolicy] (null is Always) restarts a container that exited with [exitCode]. */
    fun restarts(restartPolicy: String?, exitCode: Int): Boolean =
        when (restartPolicy ?: "Always") {
            "Always" -> true
            "OnFailure" -> exitCode != 0
            else -> false
        }

    /** Wait before the [crashes]-th consecutive restart: the first is immediate, then 10 s, 20 s, 40 s ... 5 min. */
    fun backoff(crashes: Int): Duration {
        if (crashes <= 1) return Duration.ZERO
        val doublings = (crashes - 2).coerceAtMost(MAX_DOUBLINGS)
        val delay = INITIAL_BACKOFF.multipliedBy(1L shl doublings)
        return if (delay > MAX_BACKOFF) MAX_BACKOFF else delay
    }

    /** Consecutive crash count after a run of [ran] that followed [previous] crashes. */
    fun crashesAfter(previous: Int, ran: Duration): Int = if (ran >= BACKOFF_RESET_AFTER) 1 else previous + 1

    /**
     * The restartCount of this agent's first start of a container whose last reported status is
     * [reported]: one more than reported if a process had started (an earlier agent ran it, and
     * stopped it or died with it), as a kubelet counts a container that is gone; else 0.
     */
    fun firstStartCount(reported: ContainerStatus?): Int {
        if (reported == null) return 0
        val ran =
            reported.state?.running != null || reported.state?.terminated != null ||
                reported.lastState?.terminated != null
        return if (ran) (reported.restartCount ?: 0) + 1 else 0
    }

    private const val MAX_DOUBLINGS = 10
}
