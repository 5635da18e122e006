package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.probe.ProbeCheck
import dev.danki.cluster.probe.ProbeKind
import dev.danki.cluster.probe.ProbeOutcome
import dev.danki.cluster.probe.ProbeSettings
import dev.danki.cluster.probe.ProbeTracker
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.Probe
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import org.slf4j.LoggerFactory

/**
 * The startup, readiness and liveness probes of one run of a container, with the kubelet's
 * semantics: readiness and liveness wait for the startup probe; a failed startup or liveness
 * probe kills the container (the restart policy then decides); readiness only flips `ready`.
 */
class ContainerProbes(
    private val context: PodContext,
    private val container: Container,
    private val process: Process,
    private val onChange: () -> Unit,
) {
    private val log = LoggerFactory.getLogger(ContainerProbes::class.java)
    private val startup = container.startupProbe?.let { ProbeTracker(ProbeKind.STARTUP, ProbeSettings.of(it)) }
    private val readiness = container.readinessProbe?.let { ProbeTracker(ProbeKind.READINESS, ProbeSettings.of(it)) }
    private val liveness = container.livenessProbe?.let { ProbeTracker(ProbeKind.LIVENESS, ProbeSettings.of(it)) }

    /** The startup probe has passed, or there is none. */
    val started: Boolean get() = startup?.everSucceeded ?: true

    /** The readiness probe currently passes, or there is none. */
    val ready: Boolean get() = started && (readiness?.succeeding ?: true)

    /** Runs the probes while [block] runs (it waits for the process), then stops them. */
    suspend fun <T> runWhile(block: suspend () -> T): T =
        coroutineScope {
            val loops =
                listOfNotNull(
                    startup?.let { launch { loop(it, container.startupProbe) } },
                    readiness?.let { launch { loop(it, container.readinessProbe) } },
                    liveness?.let { launch { loop(it, container.livenessProbe) } },
                )
            try {
                block()
            } finally {
                loops.forEach { it.cancel() }
            }
        }

    private suspend fun loop(tracker: ProbeTracker, probe: Probe) {
        val periodMillis = tracker.settings.periodSeconds * MILLIS
        delay(tracker.settings.initialDelaySeconds * MILLIS)
        val check = ProbeCheck(probe, container, context.ip)
        while (process.isAlive) {
            if (tracker.kind == ProbeKind.STARTUP && tracker.everSucceeded) return
            if (tracker.kind != ProbeKind.STARTUP && !started) {
                delay(WAIT_FOR_STARTUP_MILLIS)
                continue
            }
            val began = System.nanoTime()
            val outcome = runInterruptible(CHECKS) { check.run() }
            val changed = tracker.record(outcome.success)
            // One Unhealthy event per turn to failing (the kubelet's recorder would aggregate the repeats).
            val turnedBad = changed && !tracker.succeeding
            val unhealthy = turnedBad || (tracker.kind == ProbeKind.STARTUP && tracker.failed)
            if (tracker.kind != ProbeKind.READINESS && tracker.failed) {
                killUntilDead(tracker, probe, outcome, unhealthy)
                return
            }
            if (unhealthy) reportUnhealthy(tracker, outcome)
            if (changed) reportChange(tracker, outcome)
            // Start to start, as the kubelet's ticker: a slow check does not push later ones back.
            val elapsedMillis = (System.nanoTime() - began) / NANOS_PER_MILLI
            delay(periodMillis - elapsedMillis % periodMillis)
        }
    }

    /**
     * Kills the container after a failed liveness or startup probe: SIGTERM, its grace period,
     * SIGKILL; events only once the signal is sent. Returns only when the process is dead: one
     * that is still there is sent SIGKILL again every period, with a warning.
     */
    private suspend fun killUntilDead(tracker: ProbeTracker, probe: Probe, outcome: ProbeOutcome, unhealthy: Boolean) {
        val grace = TerminationGrace.forProbeKill(context.pod, probe)
        val kind = tracker.kind.label.lowercase()
        // Not cancellable: a container that is sent SIGTERM is also sent SIGKILL after its grace.
        withContext(NonCancellable) {
            ProcessTree.terminate(process, grace) {
                val graceSeconds = "graceSeconds" to grace.seconds
                log.infoWith("probe failed, container sent SIGTERM", fields(tracker, outcome) + graceSeconds)
                if (unhealthy) reportUnhealthy(tracker, outcome)
                val why = "Container ${container.name} failed $kind probe, will be restarted"
                context.events.normal(context.pod, container.name, "Killing", why)
            }
        }
        while (process.isAlive) {
            val pid = "pid" to process.pid()
            log.warnWith("container alive after SIGKILL, sending it again", fields(tracker, outcome) + pid)
            ProcessTree.kill(process)
            delay(tracker.settings.periodSeconds * MILLIS)
        }
    }

    private fun reportUnhealthy(tracker: ProbeTracker, outcome: ProbeOutcome) {
        val message = "${tracker.kind.label} probe failed: ${outcome.detail}"
        context.events.warning(context.pod, container.name, "Unhealthy", message)
    }

    private fun reportChange(tracker: ProbeTracker, outcome: ProbeOutcome) {
        log.infoWith("probe result changed", fields(tracker, outcome) + ("succeeding" to tracker.succeeding))
        onChange()
    }

    private fun fields(tracker: ProbeTracker, outcome: ProbeOutcome) =
        listOf(
            "namespace" to context.namespace,
            "pod" to context.name,
            "container" to container.name,
            "probe" to tracker.kind.name.lowercase(),
            "detail" to outcome.detail,
        )

    private companion object {
        const val MILLIS = 1000L
        const val NANOS_PER_MILLI = 1_000_000L

        /** How soon readiness and liveness notice that the startup probe passed. */
        const val WAIT_FOR_STARTUP_MILLIS = 200L

        /**
         * Probe checks block for up to their timeout each. They get threads of their own (a view
         * of IO outside its 64-thread limit), at most 16 at once, so a crowd of slow probes never
         * holds up the threads that status writes and the probes' own timers resume on.
         */
        const val CHECK_THREADS = 16
        val CHECKS = Dispatchers.IO.limitedParallelism(CHECK_THREADS)
    }
}
