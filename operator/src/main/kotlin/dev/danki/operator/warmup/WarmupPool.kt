package dev.danki.operator.warmup

import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** One queued or running warm-up; [cancel] stops its k6 process at once. */
class WarmupTask(
    val runKey: String,
    val podKey: String,
) {
    @Volatile var cancelled = false
        private set

    @Volatile var process: K6Process? = null
    private val stop = CountDownLatch(1)

    fun cancel() {
        cancelled = true
        process?.cancel()
        stop.countDown()
    }

    /** Waits [delay] between attempts; false when cancelled meanwhile. */
    fun pause(delay: Duration): Boolean = !stop.await(delay.toMillis(), TimeUnit.MILLISECONDS) && !cancelled
}

/**
 * The bounded pool warm-ups run on: [concurrency] k6 processes at most, the rest wait in a queue of
 * at most [capacity]. Tasks are keyed by WarmupRun, so a pod is never warmed twice at once.
 */
class WarmupPool(
    concurrency: Int,
    capacity: Int,
    private val onChange: (running: Int, queued: Int) -> Unit,
) {
    private val tasks = ConcurrentHashMap<String, WarmupTask>()
    private val running = AtomicInteger()
    private val threads = AtomicInteger()
    private val executor =
        ThreadPoolExecutor(
            concurrency,
            concurrency,
            0,
            TimeUnit.MILLISECONDS,
            LinkedBlockingQueue(capacity),
        ) { r -> Thread(r, "warmup-${threads.incrementAndGet()}").apply { isDaemon = true } }

    fun isActive(runKey: String) = tasks.containsKey(runKey)

    /** Queues [body]; false when the queue is full (the caller retries later). */
    fun submit(
        runKey: String,
        podKey: String,
        body: (WarmupTask) -> Unit,
    ): Boolean {
        val task = WarmupTask(runKey, podKey)
        if (tasks.putIfAbsent(runKey, task) != null) return true
        try {
            executor.execute { runTask(task, body) }
        } catch (e: RejectedExecutionException) {
            tasks.remove(runKey, task)
            return false.also { e.message }
        }
        publish()
        return true
    }

    private fun runTask(
        task: WarmupTask,
        body: (WarmupTask) -> Unit,
    ) {
        running.incrementAndGet()
        publish()
        try {
            if (!task.cancelled) body(task)
        } finally {
            running.decrementAndGet()
            tasks.remove(task.runKey, task)
            publish()
        }
    }

    /** Cancels every task of a pod except [keep] (the run for its current restart count). */
    fun cancelPod(
        podKey: String,
        keep: String? = null,
    ) {
        tasks.values.filter { it.podKey == podKey && it.runKey != keep }.forEach {
            it.cancel()
            tasks.remove(it.runKey, it)
        }
        publish()
    }

    fun queued(): Int = executor.queue.size

    fun running(): Int = running.get()

    /** Kills every k6 process; used on shutdown and when leadership is lost. */
    fun shutdownNow() {
        tasks.values.forEach { it.cancel() }
        executor.shutdownNow()
        executor.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)
    }

    private fun publish() = onChange(running.get(), executor.queue.size)

    companion object {
        private const val SHUTDOWN_WAIT_SECONDS = 5L
    }
}
