package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.probe.ProbeCheck
import dev.danki.cluster.probe.ProbeKind
import dev.danki.cluster.probe.ProbeSettings
import dev.danki.cluster.probe.ProbeTracker
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.Probe
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runInterruptible
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
    private val kill: suspend () -> Unit,
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

    private suspend fun loop(
        tracker: ProbeTracker,
        probe: Probe,
    ) {
        val settings = tracker.settings
        delay(settings.initialDelaySeconds * MILLIS)
        val check = ProbeCheck(probe, container, context.ip)
        while (process.isAlive) {
            if (tracker.kind == ProbeKind.STARTUP && tracker.everSucceeded) return
            if (tracker.kind != ProbeKind.STARTUP && !started) {
                delay(WAIT_FOR_STARTUP_MILLIS)
                continue
            }
            val outcome = runInterruptible(Dispatchers.IO) { check.run() }
            val changed = tracker.record(outcome.success)
            // One event per turn to failing (the kubelet's recorder would aggregate the repeats).
            val turnedBad = changed && !tracker.succeeding
            val startupGaveUp = tracker.kind == ProbeKind.STARTUP && tracker.failed
            if (turnedBad || startupGaveUp) {
                val message = "${tracker.kind.label} probe failed: ${outcome.detail}"
                context.events.warning(context.pod, container.name, "Unhealthy", message)
            }
            if (changed) {
                log.infoWith(
                    "probe result changed",
                    "namespace" to context.namespace,
                    "pod" to context.name,
                    "container" to container.name,
                    "probe" to tracker.kind.name.lowercase(),
                    "succeeding" to tracker.succeeding,
                    "detail" to outcome.detail,
                )
                onChange()
            }
            if (tracker.kind != ProbeKind.READINESS && tracker.failed) {
                log.infoWith(
                    "probe failed, killing container",
                    "namespace" to context.namespace,
                    "pod" to context.name,
                    "container" to container.name,
                    "probe" to tracker.kind.name.lowercase(),
                    "detail" to outcome.detail,
                )
                val kind = tracker.kind.label.lowercase()
                val why = "Container ${container.name} failed $kind probe, will be restarted"
                context.events.normal(context.pod, container.name, "Killing", why)
                kill()
                return
            }
            delay(settings.periodSeconds * MILLIS)
        }
    }

    private companion object {
        const val MILLIS = 1000L

        /** How soon readiness and liveness notice that the startup probe passed. */
        const val WAIT_FOR_STARTUP_MILLIS = 200L
    }
}
