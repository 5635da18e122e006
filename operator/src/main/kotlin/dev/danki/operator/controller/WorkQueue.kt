package dev.danki.operator.controller

import dev.danki.operator.kube.BackoffPolicy
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

/**
 * A keyed work queue in the style of client-go's: a key is queued at most once, is never handled by
 * two workers at once, and a key added while it is being handled is handled again afterwards.
 * Its size is bounded by the number of distinct objects, not by the number of events.
 */
class WorkQueue<K : Any>(
    private val name: String,
    private val backoff: BackoffPolicy = BackoffPolicy.RECONCILE,
) {
    private val lock = ReentrantLock()
    private val notEmpty = lock.newCondition()
    private val queue = ArrayDeque<K>()
    private val dirty = HashSet<K>()
    private val processing = HashSet<K>()
    private val failures = ConcurrentHashMap<K, Int>()
    private var stopped = false
    private val timer: ScheduledExecutorService =
        Executors.newSingleThreadScheduledExecutor { r ->
            Thread(r, "$name-delay").apply { isDaemon = true }
        }

    /** Queues [key] now, unless it is already waiting. */
    fun add(key: K) =
        lock.withLock {
            if (stopped || !dirty.add(key)) return@withLock
            if (key !in processing) {
                queue.addLast(key)
                notEmpty.signal()
            }
        }

    /** Queues [key] after [delay]; used for deadlines and polls, never for sleeping in a worker. */
    fun addAfter(key: K, delay: Duration) {
        if (delay.isNegative || delay.isZero) return add(key)
        if (!timer.isShutdown) timer.schedule({ add(key) }, delay.toMillis(), TimeUnit.MILLISECONDS)
    }

    /** Queues [key] after a back-off that grows with each consecutive failure of that key. */
    fun addRateLimited(key: K) {
        val attempt = failures.merge(key, 1, Int::plus) ?: 1
        addAfter(key, backoff.delay(attempt))
    }

    /** Clears the failure count of [key] after it was handled without error. */
    fun forget(key: K) {
        failures.remove(key)
    }

    /** The next key to handle, blocking; null once the queue is shut down. */
    fun take(): K? =
        lock.withLock {
            while (queue.isEmpty() && !stopped) notEmpty.await()
            if (stopped) return@withLock null
            val key = queue.removeFirst()
            dirty.remove(key)
            processing.add(key)
            key
        }

    /** Marks [key] handled; if it was added meanwhile it goes back in the queue. */
    fun done(key: K) =
        lock.withLock {
            processing.remove(key)
            if (key in dirty && !stopped) {
                queue.addLast(key)
                notEmpty.signal()
            }
        }

    /** Keys waiting to be handled. */
    fun size(): Int = lock.withLock { queue.size }

    fun shutdown() {
        lock.withLock {
            stopped = true
            notEmpty.signalAll()
        }
        timer.shutdownNow()
    }
}
