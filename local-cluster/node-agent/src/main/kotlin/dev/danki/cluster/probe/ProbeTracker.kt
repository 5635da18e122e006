package dev.danki.cluster.probe

import io.fabric8.kubernetes.api.model.Probe

/** The three probe kinds; each starts from the result the kubelet assumes before the first probe. */
enum class ProbeKind(
    val initiallySucceeding: Boolean,
) {
    /** Liveness, readiness and the container's `started` flag wait for it. */
    STARTUP(false),

    /** A container is not ready until its readiness probe has passed. */
    READINESS(false),

    /** A container is presumed alive until its liveness probe fails. */
    LIVENESS(true),
    ;

    /** As the kubelet names it in events: Startup, Readiness, Liveness. */
    val label: String get() = name.lowercase().replaceFirstChar { it.uppercase() }
}

/** A probe's timing and thresholds, with the kubelet's defaults for fields the pod leaves out. */
data class ProbeSettings(
    val initialDelaySeconds: Int = 0,
    val periodSeconds: Int = DEFAULT_PERIOD_SECONDS,
    val timeoutSeconds: Int = DEFAULT_TIMEOUT_SECONDS,
    val successThreshold: Int = 1,
    val failureThreshold: Int = DEFAULT_FAILURE_THRESHOLD,
) {
    companion object {
        /** Kubernetes API defaults for a Probe. */
        const val DEFAULT_PERIOD_SECONDS = 10
        const val DEFAULT_TIMEOUT_SECONDS = 1
        const val DEFAULT_FAILURE_THRESHOLD = 3

        fun of(probe: Probe): ProbeSettings =
            ProbeSettings(
                initialDelaySeconds = probe.initialDelaySeconds ?: 0,
                periodSeconds = probe.periodSeconds?.takeIf { it > 0 } ?: DEFAULT_PERIOD_SECONDS,
                timeoutSeconds = probe.timeoutSeconds?.takeIf { it > 0 } ?: DEFAULT_TIMEOUT_SECONDS,
                successThreshold = probe.successThreshold?.takeIf { it > 0 } ?: 1,
                failureThreshold = probe.failureThreshold?.takeIf { it > 0 } ?: DEFAULT_FAILURE_THRESHOLD,
            )
    }
}

/**
 * The kubelet's probe result state machine: the result flips to success after `successThreshold`
 * consecutive successes and to failure after `failureThreshold` consecutive failures.
 */
class ProbeTracker(
    val kind: ProbeKind,
    val settings: ProbeSettings,
) {
    /** Current result: what the container's ready/started/alive state follows. */
    var succeeding: Boolean = kind.initiallySucceeding
        private set

    /** True once the result has flipped to success at least once (startup probes stop then). */
    var everSucceeded: Boolean = false
        private set

    private var successes = 0
    private var failures = 0

    /** `failureThreshold` consecutive failures: a liveness or startup probe now kills the container. */
    val failed: Boolean get() = failures >= settings.failureThreshold

    /** Records one probe outcome; returns true when the result changed. */
    fun record(success: Boolean): Boolean {
        if (success) {
            successes++
            failures = 0
        } else {
            failures++
            successes = 0
        }
        val before = succeeding
        if (success && successes >= settings.successThreshold) succeeding = true
        if (!success && failures >= settings.failureThreshold) succeeding = false
        if (succeeding) everSucceeded = true
        return before != succeeding
    }
}
