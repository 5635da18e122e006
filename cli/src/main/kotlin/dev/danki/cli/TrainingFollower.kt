package dev.danki.cli

import java.time.Duration
import java.time.Instant

/**
 * Follows a Deployment's AotCache until the training asked for with [requested] is decided or the
 * deadline passes: polls every [POLL], and prints a progress line when it changes (and every
 * [HEARTBEAT] otherwise, so a long training shows it is still being followed).
 */
class TrainingFollower(
    private val caches: AotCaches,
    private val console: Console,
) {
    /** The decided progress ([TrainingProgress.Ready] or [TrainingProgress.Ended]), or the last one seen. */
    fun follow(ref: DeploymentRef, requested: String, timeout: Duration): TrainingProgress {
        val start = Instant.now()
        val deadline = start + timeout
        var last: TrainingProgress? = null
        var lastPrinted = Instant.MIN
        while (true) {
            val progress = TrainingProgress.of(caches.get(ref), requested)
            if (progress !is TrainingProgress.Waiting) return progress
            if (progress != last || Duration.between(lastPrinted, Instant.now()) >= HEARTBEAT) {
                val elapsed = Duration.between(start, Instant.now()).seconds
                console.out.println("${elapsed.toString().padStart(ELAPSED_WIDTH)}s  ${progress.what}")
                last = progress
                lastPrinted = Instant.now()
            }
            if (!Instant.now().isBefore(deadline)) return progress
            Thread.sleep(POLL.toMillis())
        }
    }

    companion object {
        val POLL: Duration = Duration.ofSeconds(1)
        val HEARTBEAT: Duration = Duration.ofSeconds(30)
        private const val ELAPSED_WIDTH = 5
    }
}
