package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.status.ContainerSnapshot
import dev.danki.cluster.status.RunState
import io.fabric8.kubernetes.api.model.Container
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import org.slf4j.LoggerFactory
import java.io.IOException
import java.nio.file.Files
import java.time.Duration
import java.time.Instant

/**
 * Runs one container of a pod as a host process, again and again as its restart policy says,
 * with its probes. Every change of what it would report calls [onChange].
 */
class ContainerRunner(
    private val context: PodContext,
    private val container: Container,
    private val onChange: () -> Unit,
    /** Starts the process; tests pass one that fails. */
    private val launcher: (ProcessBuilder) -> Process = ProcessBuilder::start,
    /** restartCount of the first start: above 0 when an earlier agent had run this container. */
    firstStartCount: Int = 0,
) {
    private val log = LoggerFactory.getLogger(ContainerRunner::class.java)
    private val lock = Any()

    @Volatile private var state: RunState = RunState.Waiting("ContainerCreating")

    @Volatile private var lastTermination: RunState.Terminated? = null

    // until the first start, what the earlier agent reported
    @Volatile private var restartCount = (firstStartCount - 1).coerceAtLeast(0)

    @Volatile private var process: Process? = null

    @Volatile private var stopping = false

    @Volatile private var probes: ContainerProbes? = null

    /** Processes started so far; the next start's restartCount. Touched by [run] only. */
    private var starts = firstStartCount

    /** Consecutive crashes, for the back-off. Touched by [run] only. */
    private var crashes = 0

    private val logFile = context.dir.resolve("${container.name}.log")

    /** Where this run's output starts in [logFile], which every run appends to. Touched by [run] only. */
    private var logStart = 0L

    private val termination = TerminationMessage.of(context.dir, container)

    /** What the kubelet would report for this container now. */
    fun snapshot(): ContainerSnapshot {
        val current = state
        val running = current is RunState.Running
        // The probes attach just after the process starts and detach just before its exit is
        // recorded; in between, a status write must not take "no probes yet" for "probes passed".
        val attached = probes
        val started = running && (attached?.started ?: (container.startupProbe == null))
        val ready = started && (attached?.ready ?: (container.readinessProbe == null))
        return ContainerSnapshot(
            name = container.name,
            image = container.image,
            state = current,
            lastTermination = lastTermination,
            restartCount = restartCount,
            started = started,
            ready = ready,
            containerId = process?.let { "danki://${it.pid()}" },
            willRestart = current is RunState.Terminated && !stopping && willRestart(current.exitCode),
        )
    }

    /**
     * Runs until the container ends for good or [stop] is called. Called again after it failed
     * unexpectedly, it adopts the process it left running instead of starting a second one.
     */
    suspend fun run() {
        while (!stopping) {
            val terminated = runOnce() ?: continue
            if (stopping || !willRestart(terminated.exitCode)) {
                state = terminated
                onChange()
                return
            }
            backOff(terminated)
        }
    }

    /**
     * SIGTERM to the container's process tree, SIGKILL after [grace]; no restart afterwards.
     * Called again with a shorter [grace] (a force delete), it sends SIGKILL sooner.
     */
    suspend fun stop(grace: Duration) {
        var first = false
        val running =
            synchronized(lock) {
                first = !stopping
                stopping = true
                process
            } ?: return
        if (!running.isAlive) return
        ProcessTree.terminate(running, grace) {
            if (first) {
                context.events.normal(context.pod, container.name, "Killing", "Stopping container ${container.name}")
            }
        }
    }

    /** One run of the container, to its end; null when it did not start (it waits, or it is stopping). */
    private suspend fun runOnce(): RunState.Terminated? {
        process?.takeIf { it.isAlive }?.let { return await(it) }
        val spec =
            when (val preparation = LaunchPreparation.of(context, container)) {
                is LaunchPreparation.Ready -> {
                    preparation.spec
                }

                is LaunchPreparation.Blocked -> {
                    waiting(preparation)
                    delay(preparation.retryAfter.toMillis())
                    return null
                }
            }
        val started =
            try {
                start(spec)
            } catch (e: IOException) {
                // Fork can fail under load (EAGAIN): the kubelet's RunContainerError, retried with back-off.
                return startError(spec, e)
            }
        return started?.let { await(it) }
    }

    /** Waits for [running] to exit, probing it meanwhile. */
    private suspend fun await(running: Process): RunState.Terminated {
        val runProbes = ContainerProbes(context, container, running, onChange)
        probes = runProbes
        val exitCode =
            try {
                runProbes.runWhile { running.onExit().await().exitValue() }
            } finally {
                probes = null
            }
        log.infoWith("container exited", fields() + listOf("exitCode" to exitCode, "stopping" to stopping))
        val message = termination.read(exitCode, logFile, logStart)
        return terminatedState(exitCode, state, Instant.now(), message)
    }

    /** Waits out the kubelet's back-off before the next start, showing why in the waiting state. */
    private suspend fun backOff(terminated: RunState.Terminated) {
        val ran = Duration.between(terminated.startedAt ?: terminated.finishedAt, terminated.finishedAt)
        crashes = RestartRules.crashesAfter(crashes, ran)
        lastTermination = terminated
        val backoff = RestartRules.backoff(crashes)
        val reason = if (terminated.reason == START_ERROR) "RunContainerError" else "CrashLoopBackOff"
        val message = "back-off ${backoff.seconds}s restarting failed container=${container.name} pod=${context.name}"
        state = RunState.Waiting(reason, message)
        if (backoff > Duration.ZERO) {
            context.events.warning(context.pod, container.name, "BackOff", "Back-off restarting failed container")
        }
        onChange()
        delay(backoff.toMillis())
    }

    private fun willRestart(exitCode: Int) = RestartRules.restarts(context.pod.spec.restartPolicy, exitCode)

    /** Shows the waiting reason the kubelet would show, with a Failed event when it changes. */
    private fun waiting(blocked: LaunchPreparation.Blocked) {
        val next = RunState.Waiting(blocked.reason, blocked.message)
        if (state == next) return
        val why = listOf("reason" to blocked.reason, "detail" to blocked.message)
        log.warnWith("container cannot start", fields() + why)
        context.events.warning(context.pod, container.name, "Failed", "Error: ${blocked.reason}: ${blocked.message}")
        state = next
        onChange()
    }

    /** Starts the process; null when the container is stopping. Throws when the process cannot start. */
    private fun start(spec: LaunchSpec): Process? {
        termination.reset()
        logStart = if (Files.exists(logFile)) Files.size(logFile) else 0L
        val builder =
            ProcessBuilder(ContainerCommand.argv(context, container, spec))
                .directory(spec.workingDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        builder.environment().clear()
        builder.environment().putAll(spec.env)
        // Only the start itself under the lock: stop() must never wait on an API call to send SIGTERM.
        val started =
            synchronized(lock) {
                if (stopping) return null
                launcher(builder).also { process = it }
            }
        restartCount = starts++
        state = RunState.Running(Instant.now())
        val what = listOf("pid" to started.pid(), "argv" to spec.argv.joinToString(" "))
        log.infoWith("container started", fields() + what)
        context.events.normal(context.pod, container.name, "Started", "Started container ${container.name}")
        onChange()
        return started
    }

    /** The kubelet's StartError: exit code 128; the restart policy decides whether it is tried again. */
    private fun startError(spec: LaunchSpec, error: IOException): RunState.Terminated {
        val message = "cannot start ${spec.argv.first()}: ${error.message}"
        log.warnWith("container cannot start", fields() + listOf("reason" to "RunContainerError"), error = error)
        context.events.warning(context.pod, container.name, "Failed", "Error: RunContainerError: $message")
        val now = Instant.now()
        return RunState.Terminated(START_ERROR_EXIT, START_ERROR, startedAt = null, finishedAt = now, message = message)
    }

    private fun terminatedState(exitCode: Int, previous: RunState, finished: Instant, message: String?) =
        RunState.Terminated(
            exitCode = exitCode,
            reason = if (exitCode == 0) "Completed" else "Error",
            startedAt = (previous as? RunState.Running)?.startedAt,
            finishedAt = finished,
            signal = if (exitCode > SIGNAL_BASE) exitCode - SIGNAL_BASE else null,
            message = message,
        )

    private fun fields() =
        listOf(
            "namespace" to context.namespace,
            "pod" to context.name,
            "container" to container.name,
        )

    private companion object {
        /** What containerd reports for a container whose process could not be started. */
        const val START_ERROR = "StartError"
        const val START_ERROR_EXIT = 128

        /** Shells report death by signal N as exit status 128+N. */
        const val SIGNAL_BASE = 128
    }
}
