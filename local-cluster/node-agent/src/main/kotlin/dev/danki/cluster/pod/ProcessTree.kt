package dev.danki.cluster.pod

import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeoutOrNull
import java.time.Duration

/** Stops a container's whole process tree: SIGTERM, the grace period, then SIGKILL. */
object ProcessTree {
    /** How long to wait for the kernel to reap a SIGKILLed process. */
    private val REAP_WAIT: Duration = Duration.ofSeconds(5)

    /**
     * SIGTERM to [process] and its descendants, then [onSignalled], then up to [grace] for it to
     * exit, then SIGKILL to whatever is left. SIGKILL is sent even when the caller is cancelled
     * during the wait: a process that ignores SIGTERM (a hung JVM) would otherwise live on.
     */
    suspend fun terminate(process: Process, grace: Duration, onSignalled: () -> Unit = {}) {
        val root = process.toHandle()
        // Taken before SIGTERM: children of a parent that exits are re-parented and no longer its descendants.
        val before = treeOf(root)
        before.forEach { it.destroy() }
        try {
            onSignalled()
            withTimeoutOrNull(grace.toMillis()) { process.onExit().await() }
        } finally {
            withContext(NonCancellable) {
                kill(before + treeOf(root))
                withTimeoutOrNull(REAP_WAIT.toMillis()) { process.onExit().await() }
            }
        }
    }

    /** SIGKILL to [process] and its descendants at once. */
    fun kill(process: Process) = kill(treeOf(process.toHandle()))

    private fun kill(handles: List<ProcessHandle>) = handles.filter { it.isAlive }.forEach { it.destroyForcibly() }

    private fun treeOf(root: ProcessHandle): List<ProcessHandle> {
        val all = listOf(root) + root.descendants().toList()
        return all.filter { it.isAlive }
    }
}
