package dev.danki.cluster.status

import java.time.Instant

/** Where one container is in its life, as the kubelet reports it in `containerStatuses[].state`. */
sealed interface RunState {
    /** Not running: never started yet, failed to start, or waiting out a restart back-off. */
    data class Waiting(
        val reason: String,
        val message: String? = null,
    ) : RunState

    /** Its process is alive. */
    data class Running(
        val startedAt: Instant,
    ) : RunState

    /** Its process exited (or was killed) and will not be restarted now. */
    data class Terminated(
        val exitCode: Int,
        val reason: String,
        val startedAt: Instant?,
        val finishedAt: Instant,
        val signal: Int? = null,
        val message: String? = null,
    ) : RunState
}

/** Everything the status writer needs about one container at one moment. */
data class ContainerSnapshot(
    val name: String,
    val image: String,
    val state: RunState,
    val lastTermination: RunState.Terminated? = null,
    val restartCount: Int = 0,
    /** Startup probe passed (or there is none) and the process is running. */
    val started: Boolean = false,
    /** Readiness probe passed (or there is none) and the container is started. */
    val ready: Boolean = false,
    val containerId: String? = null,
    /** The restart policy will start this container again after it exits. */
    val willRestart: Boolean = false,
)
