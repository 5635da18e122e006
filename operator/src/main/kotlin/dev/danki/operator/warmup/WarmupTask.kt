package dev.danki.operator.warmup

import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

/** One queued or running warm-up; [cancel] stops its k6 process at once. */
class WarmupTask(
    val runKey: String,
    val podKey: String,
) {
    /** Where the task is in the pool: waiting for a slot, taken by a worker, or taken out of the queue. */
    enum class State { QUEUED, RUNNING, WITHDRAWN }

    private val state = AtomicReference(State.QUEUED)

    @Volatile var cancelled = false
        private set

    @Volatile var process: RunningAttempt? = null
    private val stop = CountDownLatch(1)

    val running: Boolean get() = state.get() == State.RUNNING

    val queued: Boolean get() = state.get() == State.QUEUED

    /** A worker takes the task; false when it was withdrawn first. */
    internal fun begin(): Boolean = state.compareAndSet(State.QUEUED, State.RUNNING)

    /** Takes the task out before a worker does; false when a worker took it first. */
    internal fun withdraw(): Boolean = state.compareAndSet(State.QUEUED, State.WITHDRAWN)

    fun cancel() {
        cancelled = true
        process?.cancel()
        stop.countDown()
    }

    /** How the pool pauses this task between attempts (giving up its slot meanwhile); null: [sleep]. */
    @Volatile internal var pauser: ((Duration) -> Boolean)? = null

    /** Waits [delay] between attempts; false when cancelled (or interrupted) meanwhile. */
    fun pause(delay: Duration): Boolean = pauser?.invoke(delay) ?: sleep(delay)

    /** Waits [delay]; false when cancelled (or interrupted) meanwhile. */
    internal fun sleep(delay: Duration): Boolean =
        try {
            !stop.await(delay.toMillis(), TimeUnit.MILLISECONDS) && !cancelled
        } catch (e: InterruptedException) {
            // the pool is shutting down; the worker keeps its interrupt
            Thread.currentThread().interrupt()
            false
        }
}
