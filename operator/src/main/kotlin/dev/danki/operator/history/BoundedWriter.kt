package dev.danki.operator.history

import java.util.concurrent.ArrayBlockingQueue
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit

/**
 * One thread of its own that runs tasks in order, with at most [capacity] waiting. A task beyond that
 * is refused rather than queued: while the API server is away each history write retries for a while,
 * and an unbounded queue would grow with every warm-up that finished meanwhile.
 */
class BoundedWriter(
    name: String,
    capacity: Int,
) : AutoCloseable {
    private val executor =
        ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, ArrayBlockingQueue(capacity)) { task ->
            Thread(task, name).apply { isDaemon = true }
        }

    /** Queues [task]; false when [capacity] tasks already wait (or the writer is closed). */
    fun submit(task: () -> Unit): Boolean =
        try {
            executor.execute(task)
            true
        } catch (_: RejectedExecutionException) {
            false
        }

    /** Takes no more tasks; waits up to [seconds] for the queued ones. */
    fun close(seconds: Long) {
        executor.shutdown()
        executor.awaitTermination(seconds, TimeUnit.SECONDS)
    }

    override fun close() = close(0)
}
