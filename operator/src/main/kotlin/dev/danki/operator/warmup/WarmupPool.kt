package dev.danki.operator.warmup

import org.slf4j.LoggerFactory
import java.util.concurrent.CancellationException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The bounded pool warm-ups run on: [concurrency] k6 processes at most, the rest wait in a queue of
 * at most [capacity]. Tasks are keyed by WarmupRun, so a pod is never warmed twice at once. A task is
 * forgotten before [onFinished] hears of it, so whoever looks at the pod next sees it finished.
 */
class WarmupPool(
    concurrency: Int,
    capacity: Int,
    private val onChange: (running: Int, queued: Int) -> Unit,
    private val onFinished: (task: WarmupTask, crash: Exception?) -> Unit = { _, _ -> },
) {
    private val log = LoggerFactory.getLogger(WarmupPool::class.java)
    private val tasks = ConcurrentHashMap<String, Entry>()

    /** Runs the full queue turned away (run key to pod key); their pods retry and count as queued meanwhile. */
    private val turnedAway = ConcurrentHashMap<String, String>()
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

    private class Entry(
        val task: WarmupTask,
        val runnable: Runnable,
    )

    /** The run waits in the queue for a slot. */
    fun isQueued(runKey: String) = tasks[runKey]?.task?.queued == true

    /** The run's k6 attempts are under way on a worker. */
    fun isRunning(runKey: String) = tasks[runKey]?.task?.running == true

    /** Queues [body]; false when the queue is full (the caller retries later). */
    fun submit(
        runKey: String,
        podKey: String,
        body: (WarmupTask) -> Unit,
    ): Boolean {
        val task = WarmupTask(runKey, podKey)
        val entry = Entry(task) { runTask(task, body) }
        if (tasks.putIfAbsent(runKey, entry) != null) return true
        val accepted =
            try {
                executor.execute(entry.runnable)
                true
            } catch (e: RejectedExecutionException) {
                // full queue (or shutting down): the pod is retried later and counts as waiting meanwhile
                log
                    .atDebug()
                    .addKeyValue("run", runKey)
                    .setCause(e)
                    .log("warm-up queue full")
                tasks.remove(runKey, entry)
                false
            }
        if (accepted) turnedAway.remove(runKey) else turnedAway[runKey] = podKey
        publish()
        return accepted
    }

    /**
     * Takes a run that has not started out of the queue, so it never starts; true when nothing of it
     * will run, false when a worker already runs it.
     */
    fun withdraw(runKey: String): Boolean {
        turnedAway.remove(runKey)
        val entry = tasks[runKey]
        val withdrawn = entry == null || drop(entry)
        publish()
        return withdrawn
    }

    /** Cancels every run of a pod except [keep] (the run for its current restart count). */
    fun cancelPod(
        podKey: String,
        keep: String? = null,
    ) {
        turnedAway.entries.removeIf { it.value == podKey && it.key != keep }
        tasks.values.filter { it.task.podKey == podKey && it.task.runKey != keep }.forEach {
            it.task.cancel()
            drop(it)
        }
        publish()
    }

    /** Forgets [entry]; a queued one leaves the executor queue too. True when it had not started. */
    private fun drop(entry: Entry): Boolean {
        val withdrawn = entry.task.withdraw()
        if (withdrawn) {
            entry.task.cancel()
            executor.remove(entry.runnable)
            tasks.remove(entry.task.runKey, entry)
        }
        return withdrawn
    }

    private fun runTask(
        task: WarmupTask,
        body: (WarmupTask) -> Unit,
    ) {
        if (!task.begin()) return
        running.incrementAndGet()
        publish()
        var crash: Exception? = null
        try {
            if (!task.cancelled) body(task)
        } catch (e: CancellationException) {
            throw e
        } catch (e: InterruptedException) {
            // shutdown: keep the interrupt, so the worker thread ends
            Thread.currentThread().interrupt()
            crash = e
        } catch (
            @Suppress("TooGenericExceptionCaught") e: Exception,
        ) {
            // worker boundary: one broken warm-up must not take the worker, or the cause, with it
            crash = e
            log
                .atError()
                .addKeyValue("run", task.runKey)
                .addKeyValue("pod", task.podKey)
                .setCause(e)
                .log("warm-up crashed")
        } finally {
            running.decrementAndGet()
            tasks.computeIfPresent(task.runKey) { _, entry -> entry.takeUnless { it.task === task } }
            publish()
        }
        onFinished(task, crash)
    }

    fun queued(): Int = executor.queue.size + turnedAway.size

    /** Kills every k6 process; used on shutdown and when leadership is lost. */
    fun shutdownNow() {
        tasks.values.forEach { it.task.cancel() }
        executor.shutdownNow()
        executor.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)
    }

    private fun publish() = onChange(running.get(), queued())

    companion object {
        private const val SHUTDOWN_WAIT_SECONDS = 5L
    }
}
