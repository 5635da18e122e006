package dev.danki.cluster.pod

import dev.danki.cluster.catalog.CatalogException
import dev.danki.cluster.catalog.ImageCatalog
import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.status.ContainerSnapshot
import dev.danki.cluster.status.RunState
import io.fabric8.kubernetes.api.model.Container
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withTimeoutOrNull
import org.slf4j.LoggerFactory
import java.io.IOException
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
) {
    private val log = LoggerFactory.getLogger(ContainerRunner::class.java)
    private val lock = Any()

    @Volatile private var state: RunState = RunState.Waiting("ContainerCreating")

    @Volatile private var lastTermination: RunState.Terminated? = null

    @Volatile private var restartCount = 0

    @Volatile private var process: Process? = null

    @Volatile private var stopping = false

    @Volatile private var probes: ContainerProbes? = null

    /** What the kubelet would report for this container now. */
    fun snapshot(): ContainerSnapshot {
        val current = state
        val running = current is RunState.Running
        val started = running && probes?.started != false
        return ContainerSnapshot(
            name = container.name,
            image = container.image,
            state = current,
            lastTermination = lastTermination,
            restartCount = restartCount,
            started = started,
            ready = started && probes?.ready != false,
            containerId = process?.let { "danki://${it.pid()}" },
            willRestart = current is RunState.Terminated && !stopping && willRestart(current.exitCode),
        )
    }

    /** Runs until the container ends for good or [stop] is called. */
    suspend fun run() {
        var crashes = 0
        var starts = 0
        while (!stopping) {
            val spec = prepare()
            if (spec == null) {
                delay(PREPARE_RETRY.toMillis())
                continue
            }
            val started = start(spec, restarts = starts) ?: return
            starts++
            val runProbes = ContainerProbes(context, container, started, onChange) { killForRestart(started) }
            probes = runProbes
            val exitCode =
                try {
                    runProbes.runWhile { started.onExit().await().exitValue() }
                } finally {
                    probes = null
                }
            val finished = Instant.now()
            val terminated = terminatedState(exitCode, state, finished)
            log.infoWith("container exited", fields() + listOf("exitCode" to exitCode, "stopping" to stopping))
            if (stopping || !willRestart(exitCode)) {
                state = terminated
                onChange()
                return
            }
            crashes = RestartRules.crashesAfter(crashes, Duration.between((terminated.startedAt ?: finished), finished))
            lastTermination = terminated
            val backoff = RestartRules.backoff(crashes)
            state =
                RunState.Waiting(
                    "CrashLoopBackOff",
                    "back-off ${backoff.seconds}s restarting failed container=${container.name} pod=${context.name}",
                )
            if (backoff > Duration.ZERO) {
                context.events.warning(context.pod, container.name, "BackOff", "Back-off restarting failed container")
            }
            onChange()
            delay(backoff.toMillis())
        }
    }

    /** SIGTERM to the container's process tree, SIGKILL after [grace]; no restart afterwards. */
    suspend fun stop(grace: Duration) {
        val running =
            synchronized(lock) {
                stopping = true
                process
            } ?: return
        if (running.isAlive) {
            context.events.normal(context.pod, container.name, "Killing", "Stopping container ${container.name}")
        }
        ProcessTree.terminate(running, grace)
    }

    private fun willRestart(exitCode: Int) = RestartRules.restarts(context.pod.spec.restartPolicy, exitCode)

    /** The launch spec, or null after setting the waiting reason the kubelet would show. */
    private fun prepare(): LaunchSpec? {
        val catalog =
            try {
                ImageCatalog.load(context.config.catalog, context.config.repo)
            } catch (e: CatalogException) {
                return waiting("ErrImagePull", e.message)
            }
        val image =
            catalog.find(container.image)
                ?: return waiting(
                    "ErrImagePull",
                    "image \"${container.image}\" is not in the image catalog ${catalog.source} " +
                        "(the local node agent pulls no images; known: ${catalog.names.sorted().joinToString(", ")})",
                )
        return try {
            val env =
                ContainerEnvironment(context.pod, context.ip, context.config.bridgeIp, context.configValues)
                    .build(container, context.baseEnv() + image.env)
            LaunchSpec.of(container, image, env, context.config.repo)
        } catch (e: ContainerConfigException) {
            waiting("CreateContainerConfigError", e.message)
        }
    }

    private fun waiting(
        reason: String,
        message: String?,
    ): LaunchSpec? {
        val next = RunState.Waiting(reason, message)
        if (state != next) {
            log.warnWith("container cannot start", fields() + listOf("reason" to reason, "detail" to message))
            context.events.warning(context.pod, container.name, "Failed", "Error: $reason: $message")
            state = next
            onChange()
        }
        return null
    }

    private fun start(
        spec: LaunchSpec,
        restarts: Int,
    ): Process? {
        val logFile = context.dir.resolve("${container.name}.log").toFile()
        val builder =
            ProcessBuilder(ContainerCommand.argv(context, container, spec))
                .directory(spec.workingDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile))
        builder.environment().clear()
        builder.environment().putAll(spec.env)
        synchronized(lock) {
            if (stopping) return null
            val started =
                try {
                    builder.start()
                } catch (e: IOException) {
                    waiting("RunContainerError", "cannot start ${spec.argv.first()}: ${e.message}")
                    return null
                }
            process = started
            restartCount = restarts
            state = RunState.Running(Instant.now())
            val argv = spec.argv.joinToString(" ")
            log.infoWith("container started", fields() + listOf("pid" to started.pid(), "argv" to argv))
            context.events.normal(context.pod, container.name, "Started", "Started container ${container.name}")
            onChange()
            return started
        }
    }

    private suspend fun killForRestart(target: Process) {
        val grace = Duration.ofSeconds(context.pod.spec.terminationGracePeriodSeconds ?: DEFAULT_GRACE_SECONDS)
        withTimeoutOrNull(grace.plusSeconds(KILL_MARGIN_SECONDS).toMillis()) { ProcessTree.terminate(target, grace) }
    }

    private fun terminatedState(
        exitCode: Int,
        previous: RunState,
        finished: Instant,
    ) = RunState.Terminated(
        exitCode = exitCode,
        reason = if (exitCode == 0) "Completed" else "Error",
        startedAt = (previous as? RunState.Running)?.startedAt,
        finishedAt = finished,
        signal = if (exitCode > SIGNAL_BASE) exitCode - SIGNAL_BASE else null,
    )

    private fun fields() =
        listOf(
            "namespace" to context.namespace,
            "pod" to context.name,
            "container" to container.name,
        )

    private companion object {
        /** How often a container that cannot start (missing image, bad env) tries again. */
        val PREPARE_RETRY: Duration = Duration.ofSeconds(10)
        const val DEFAULT_GRACE_SECONDS = 30L
        const val KILL_MARGIN_SECONDS = 5L

        /** Shells report death by signal N as exit status 128+N. */
        const val SIGNAL_BASE = 128
    }
}
