package dev.danki.cluster.pod

import kotlinx.coroutines.future.await
import kotlinx.coroutines.withTimeoutOrNull
import java.time.Duration

/** Stops a container's whole process tree: SIGTERM, the grace period, then SIGKILL. */
object ProcessTree {
    /** How long to wait for the kernel to reap a SIGKILLed process. */
    private val REAP_WAIT: Duration = Duration.ofSeconds(5)

    suspend fun terminate(
        process: Process,
        grace: Duration,
    ) {
        val root = process.toHandle()
        // Taken before SIGTERM: children of a parent that exits are re-parented and no longer its descendants.
        val before = treeOf(root)
        before.forEach { it.destroy() }
        val exited = withTimeoutOrNull(grace.toMillis()) { process.onExit().await() }
        (before + treeOf(root)).filter { it.isAlive }.forEach { it.destroyForcibly() }
        if (exited == null) withTimeoutOrNull(REAP_WAIT.toMillis()) { process.onExit().await() }
    }

    private fun treeOf(root: ProcessHandle): List<ProcessHandle> {
        val all = listOf(root) + root.descendants().toList()
        return all.filter { it.isAlive }
    }
}
