package dev.danki.operator.warmup

import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.SynchronousQueue
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.math.ceil

/**
 * The bounded pool warm-ups run on: [concurrency] k6 processes at most, the rest wait in a queue of
 * at most [capacity]. A run starts in queue order as soon as a slot is free and its owner is within
 * its [shares]: one Deployment or one namespace never holds more slots than its share, so a tenant
 * whose pods answer slowly (or never) cannot starve the others, and one node never warms more pods at
 * once than its cap. Tasks are keyed by WarmupRun, so a pod
 * is never warmed twice at once. A task is forgotten before [onFinished] hears of it, so whoever looks
 * at the pod next sees it finished.
 */
class WarmupPool(
    private val concurrency: Int,
    private val capacity: Int,
    private val onChange: (running: Int, queued: Int) -> Unit,
    private val shares: FairShare = FairShare.unlimited(concurrency),
    private val onFinished: (task: WarmupTask, crash: Throwable?) -> Unit = { _, _ -> },
) {
    private val log = LoggerFactory.getLogger(WarmupPool::class.java)
    private val lock = Any()

    /** Queued runs in arrival order, and every run the pool knows (queued or running). */
    private val waiting = LinkedHashMap<String, Entry>()
    private val tasks = ConcurrentHashMap<String, Entry>()
    private val runningBy = Occupancy()

    /** Runs the full queue turned away (run key to pod key); their pods retry and count as queued meanwhile. */
    private val turnedAway = ConcurrentHashMap<String, String>()
    private val threads = AtomicInteger()

    /** Runs between attempts that want a slot back, in the order they asked; served before the queue. */
    private val resuming = LinkedHashMap<String, Resume>()

    /** A paused run waiting for a slot; [granted] opens when it has one. */
    private class Resume(
        val entry: Entry,
        val granted: CountDownLatch = CountDownLatch(1),
    )

    // only ever given a task when a slot is free; a thread per running or pausing warm-up (a paused one
    // keeps its thread but not its slot, so a bounded pool could leave the slot's new owner without a
    // thread while the paused one waits for that slot); an idle thread ends after a minute
    private val executor =
        ThreadPoolExecutor(0, Int.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, SynchronousQueue()) { r ->
            Thread(r, "warmup-${threads.incrementAndGet()}").apply { isDaemon = true }
        }

    private class Entry(
        val task: WarmupTask,
        val owner: RunOwner,
        /** The warmed pod's node and its cap. */
        val node: PodNode,
        val body: (WarmupTask) -> Unit,
    )

    /** The run waits in the queue for a slot. */
    fun isQueued(runKey: String) = tasks[runKey]?.task?.queued == true

    /** The run's k6 attempts are under way on a worker. */
    fun isRunning(runKey: String) = tasks[runKey]?.task?.running == true

    /** Queues [body]; false when the queue is full (the caller retries later). */
    fun submit(
        runKey: String,
        podKey: String,
        owner: RunOwner = RunOwner.of(podKey),
        node: PodNode = PodNode.UNKNOWN,
        body: (WarmupTask) -> Unit,
    ): Boolean {
        val accepted =
            synchronized(lock) {
                // a run already known is accepted again; a new one only while the queue has room
                if (!tasks.containsKey(runKey) && waiting.size < capacity) {
                    val entry = Entry(WarmupTask(runKey, podKey), owner, node, body)
                    tasks[runKey] = entry
                    waiting[runKey] = entry
                }
                tasks.containsKey(runKey)
            }
        if (accepted) turnedAway.remove(runKey) else turnedAway[runKey] = podKey
        if (!accepted) log.atDebug().addKeyValue("run", runKey).log("warm-up queue full")
        dispatch()
        return accepted
    }

    /**
     * Takes a run that has not started out of the queue, so it never starts; true when nothing of it
     * will run, false when a worker already runs it.
     */
    fun withdraw(runKey: String): Boolean {
        turnedAway.remove(runKey)
        val withdrawn = synchronized(lock) { tasks[runKey]?.let { drop(it) } ?: true }
        publish()
        return withdrawn
    }

    /**
     * Cancels every run of a pod except [keep] (the run for its current restart count). Returns the runs
     * that had started: their jobs end themselves, and put back what they changed on the pod.
     */
    fun cancelPod(podKey: String, keep: String? = null): Set<String> {
        turnedAway.entries.removeIf { it.value == podKey && it.key != keep }
        val started = mutableSetOf<String>()
        val cancelled =
            synchronized(lock) {
                tasks.values.filter { it.task.podKey == podKey && it.task.runKey != keep }.onEach {
                    if (!drop(it)) started += it.task.runKey
                }
            }
        // outside the lock: killing k6 waits for it to end, and a runner pod's cancel calls the API
        cancelled.forEach { it.task.cancel() }
        publish()
        return started
    }

    /** Forgets a queued [entry] (under [lock]), which then never starts; true when it had not started. */
    private fun drop(entry: Entry): Boolean {
        val withdrawn = entry.task.withdraw()
        if (withdrawn) {
            waiting.remove(entry.task.runKey)
            tasks.remove(entry.task.runKey, entry)
        }
        return withdrawn
    }

    /** Starts every queued run that a free slot and its owner's share allow, in queue order. */
    private fun dispatch() {
        val started = mutableListOf<Entry>()
        synchronized(lock) {
            // each run of the queue, in order, that a free slot and its share admit: into a slot, then to take
            fun <T> admit(queue: MutableMap<String, T>, entryOf: (T) -> Entry, take: (T) -> Unit) {
                val each = queue.values.iterator()
                while (each.hasNext() && runningBy.total < concurrency) {
                    val next = each.next()
                    val entry = entryOf(next)
                    if (!shares.admits(entry.owner, entry.node, runningBy)) continue
                    each.remove()
                    runningBy.add(entry.owner, entry.node.name)
                    take(next)
                }
            }

            // paused runs first: they started before anything queued
            admit(resuming, { it.entry }) { it.granted.countDown() }
            admit(waiting, { it }) { started += it }
        }
        started.forEach { entry ->
            try {
                executor.execute { runTask(entry) }
            } catch (e: RejectedExecutionException) {
                // shutting down: the run is forgotten, and its pod decided by the next leader
                log
                    .atDebug()
                    .addKeyValue("run", entry.task.runKey)
                    .setCause(e)
                    .log("warm-up not started")
                synchronized(lock) {
                    runningBy.remove(entry.owner, entry.node.name)
                    tasks.remove(entry.task.runKey, entry)
                }
            }
        }
        publish()
    }

    /**
     * A run's back-off between attempts, without its slot: a target that keeps failing would otherwise
     * hold a slot through every back-off while healthy pods wait in the queue (the bad-input suite saw
     * typo'd but valid plans time out behind four failing targets). It takes a slot again, ahead of the
     * queue, as soon as one is free; false when cancelled meanwhile.
     */
    private fun pauseOutside(entry: Entry, delay: Duration): Boolean {
        val task = entry.task
        synchronized(lock) { runningBy.remove(entry.owner, entry.node.name) }
        dispatch()
        if (!task.sleep(delay)) {
            synchronized(lock) { runningBy.add(entry.owner, entry.node.name) }
            return false
        }
        val resume = Resume(entry)
        synchronized(lock) { resuming[task.runKey] = resume }
        dispatch()
        val interrupted =
            try {
                while (!task.cancelled && !resume.granted.await(RESUME_POLL_MILLIS, TimeUnit.MILLISECONDS)) continue
                false
            } catch (e: InterruptedException) {
                // the pool is shutting down; the worker keeps its interrupt
                Thread.currentThread().interrupt()
                true
            }
        synchronized(lock) {
            // cancelled while waiting: hold a slot again anyway, for the moment until runTask gives it back
            if (resuming.remove(task.runKey) != null) runningBy.add(entry.owner, entry.node.name)
        }
        return !task.cancelled && !interrupted
    }

    private fun runTask(entry: Entry) {
        val task = entry.task
        var crash: Throwable? = null
        if (task.begin()) {
            task.pauser = { delay -> pauseOutside(entry, delay) }
            publish()
            crash = runBody(entry)
        }
        synchronized(lock) {
            runningBy.remove(entry.owner, entry.node.name)
            tasks.remove(task.runKey, entry)
        }
        // heard of before the freed slot is handed on, so results arrive in the order runs end
        try {
            if (task.running) onFinished(task, crash)
        } finally {
            dispatch()
        }
        // the slot is free and the run reported: an Error (out of memory, a broken class) still ends the thread
        if (crash is Error) throw crash
    }

    /** The warm-up itself; what it threw, if anything. */
    private fun runBody(entry: Entry): Throwable? {
        val task = entry.task
        return try {
            if (!task.cancelled) entry.body(task)
            null
        } catch (e: InterruptedException) {
            // shutdown: keep the interrupt, so the worker thread ends
            Thread.currentThread().interrupt()
            e
        } catch (
            @Suppress("TooGenericExceptionCaught") e: Throwable,
        ) {
            // worker boundary: one broken warm-up (a cancelled one included) must not take its slot, or
            // the pod's next reconcile, with it; not even an Error, or the run would stay "running" for good
            log
                .atError()
                .addKeyValue("run", task.runKey)
                .addKeyValue("pod", task.podKey)
                .setCause(e)
                .log("warm-up crashed")
            e
        }
    }

    /**
     * Runs waiting for a slot: queued ones, paused ones between two attempts waiting for theirs back
     * (they take the next free one, ahead of the queue), and those a full queue turned away for now.
     */
    fun queued(): Int = synchronized(lock) { waiting.size + resuming.size } + turnedAway.size

    fun running(): Int = synchronized(lock) { runningBy.total }

    /** Kills every k6 process; used on shutdown and when leadership is lost. */
    fun shutdownNow() {
        tasks.values.forEach { it.task.cancel() }
        synchronized(lock) { waiting.clear() }
        executor.shutdownNow()
        executor.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)
    }

    private fun publish() = onChange(running(), queued())

    companion object {
        private const val SHUTDOWN_WAIT_SECONDS = 5L
        private const val IDLE_SECONDS = 60L
        private const val RESUME_POLL_MILLIS = 200L
    }
}

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

/**
 * How many warm-up slots one Deployment and one namespace may hold at once. A cap, not a priority:
 * a Deployment at its share waits even when slots are free, because a slot given to a tenant whose
 * pods never answer is held until that pod's timeout, an hour at worst, and meanwhile others wait.
 * Each node has a cap of its own too ([PodNode], passed with each warm-up).
 */
data class FairShare(
    val perDeployment: Int,
    val perNamespace: Int,
) {
    fun admits(owner: RunOwner, node: PodNode, running: Occupancy) =
        running.of(owner) < perDeployment &&
            running.inNamespace(owner.namespace) < perNamespace &&
            (node.name.isEmpty() || running.onNode(node.name) < node.cap)

    companion object {
        /** Shares of [slots]; each at least one slot, so every tenant is served. */
        fun of(slots: Int, deploymentShare: Double, namespaceShare: Double) =
            FairShare(atLeastOne(slots, deploymentShare), atLeastOne(slots, namespaceShare))

        fun unlimited(slots: Int) = FairShare(slots, slots)

        private fun atLeastOne(slots: Int, share: Double) = ceil(slots * share).toInt().coerceIn(1, slots)
    }
}

/** Slots held now, in all, per owner and per namespace. Not thread-safe: the pool guards it. */
class Occupancy {
    private val byOwner = HashMap<RunOwner, Int>()
    private val byNamespace = HashMap<String, Int>()
    private val byNode = HashMap<String, Int>()

    var total = 0
        private set

    fun of(owner: RunOwner) = byOwner[owner] ?: 0

    fun inNamespace(namespace: String) = byNamespace[namespace] ?: 0

    fun onNode(node: String) = byNode[node] ?: 0

    fun add(owner: RunOwner, node: String = "") {
        total++
        byOwner.merge(owner, 1, Int::plus)
        byNamespace.merge(owner.namespace, 1, Int::plus)
        if (node.isNotEmpty()) byNode.merge(node, 1, Int::plus)
    }

    fun remove(owner: RunOwner, node: String = "") {
        total--
        byOwner.computeIfPresent(owner) { _, n -> (n - 1).takeIf { it > 0 } }
        byNamespace.computeIfPresent(owner.namespace) { _, n -> (n - 1).takeIf { it > 0 } }
        if (node.isNotEmpty()) byNode.computeIfPresent(node) { _, n -> (n - 1).takeIf { it > 0 } }
    }
}

/** Whose warm-up a run is: the tenant unit that fair sharing counts (a Deployment in a namespace). */
data class RunOwner(
    val namespace: String,
    val deployment: String,
) {
    companion object {
        /** For a pod without a Deployment: the pod alone, in its namespace. */
        fun of(podKey: String): RunOwner {
            val (namespace, pod) = podKey.split('/', limit = 2).let { it[0] to it.getOrElse(1) { "" } }
            return RunOwner(namespace, "pod:$pod")
        }
    }
}

/** The node a warmed pod runs on, and how many warm-ups that node may run at once ([NodeCaps]). */
data class PodNode(
    /** Empty when the pod is not scheduled yet: then no node cap applies. */
    val name: String,
    val cap: Int,
) {
    companion object {
        val UNKNOWN = PodNode("", Int.MAX_VALUE)
    }
}
