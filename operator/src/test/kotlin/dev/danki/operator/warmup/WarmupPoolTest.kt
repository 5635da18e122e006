package dev.danki.operator.warmup

import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.Collections
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread

/** The pool's queue: waiting, withdrawing before a start, turning away when full, and what it reports. */
class WarmupPoolTest {
    private val gauges = LinkedBlockingQueue<Pair<Int, Int>>()
    private val finished = LinkedBlockingQueue<Finished>()
    private val ran: MutableList<String> = Collections.synchronizedList(mutableListOf())
    private lateinit var pool: WarmupPool

    /** What the pool said when a task finished, and what it showed about that run at that moment. */
    private data class Finished(
        val runKey: String,
        val crash: Throwable?,
        val stillRunning: Boolean,
        val stillQueued: Boolean,
    )

    private fun newPool(capacity: Int = 10, slots: Int = 1, shares: FairShare = FairShare.unlimited(slots)) =
        WarmupPool(slots, capacity, { running, queued -> gauges += running to queued }, shares) { task, crash ->
            finished += Finished(task.runKey, crash, pool.isRunning(task.runKey), pool.isQueued(task.runKey))
        }.also { pool = it }

    /** Submits a run that blocks its worker until the returned latch is released. */
    private fun blocking(
        runKey: String,
        owner: RunOwner = RunOwner.of("ns/$runKey"),
        node: PodNode = PodNode.UNKNOWN,
    ): CountDownLatch {
        val started = CountDownLatch(1)
        val release = CountDownLatch(1)
        pool.submit(runKey, "ns/$runKey", owner, node) {
            ran += runKey
            started.countDown()
            release.await(10, TimeUnit.SECONDS)
        } shouldBe true
        started.await(10, TimeUnit.SECONDS) shouldBe true
        return release
    }

    private fun quick(runKey: String) = pool.submit(runKey, "ns/$runKey") { ran += runKey }

    private fun nextFinished() = finished.poll(10, TimeUnit.SECONDS).shouldNotBeNull()

    @AfterEach
    fun stop() {
        if (::pool.isInitialized) pool.shutdownNow()
    }

    /**
     * Submits "failing", which pauses once between two attempts, and "healthy" queued behind it before
     * that pause; returns what the pause answered (null while it lasts) and healthy's release latch.
     */
    private fun failingThenHealthy(): Pair<() -> Boolean?, CountDownLatch> {
        val go = CountDownLatch(1)
        // set on the worker, read here: a future, so the test thread sees the write
        val resumedAs = CompletableFuture<Boolean>()
        pool.submit("failing", "ns/failing") { task ->
            ran += "failing: attempt 1"
            go.await(10, TimeUnit.SECONDS)
            val resumed = task.pause(Duration.ofMillis(PAUSE_MILLIS))
            if (resumed) ran += "failing: attempt 2"
            resumedAs.complete(resumed)
        } shouldBe true
        val healthyStarted = CountDownLatch(1)
        val release = CountDownLatch(1)
        pool.submit("healthy", "ns/healthy") {
            ran += "healthy"
            healthyStarted.countDown()
            release.await(10, TimeUnit.SECONDS)
        } shouldBe true
        pool.isQueued("healthy") shouldBe true
        go.countDown()
        // the pause gave the only slot away
        healthyStarted.await(10, TimeUnit.SECONDS) shouldBe true
        return Pair({ resumedAs.getNow(null) }, release)
    }

    /**
     * Until the paused run's back-off is over and it waits for its slot back: the pool then counts it
     * as queued again, beside the one running. Earlier reports are dropped first: "healthy" was queued
     * behind it once too.
     */
    private fun awaitWaitingForSlotBack() {
        gauges.clear()
        while (true) {
            val (running, queued) = gauges.poll(10, TimeUnit.SECONDS).shouldNotBeNull()
            if (running == 1 && queued == 1) return
        }
    }

    @Test
    fun `a run pausing between attempts gives its slot to a queued one and takes a slot back after it`() {
        newPool(slots = 1)
        val (resumed, release) = failingThenHealthy()
        // the healthy run holds the only slot: the paused one waits for it, past its back-off
        awaitWaitingForSlotBack()
        resumed() shouldBe null
        pool.running() shouldBe 1
        release.countDown()
        setOf(nextFinished().runKey, nextFinished().runKey) shouldBe setOf("failing", "healthy")
        resumed() shouldBe true
        ran shouldContainExactly listOf("failing: attempt 1", "healthy", "failing: attempt 2")
        pool.running() shouldBe 0
    }

    @Test
    fun `a run cancelled while it waits for its slot back ends and leaves the slots as they were`() {
        newPool(slots = 1)
        val (resumed, release) = failingThenHealthy()
        awaitWaitingForSlotBack()
        pool.cancelPod("ns/failing")
        nextFinished().runKey shouldBe "failing"
        resumed() shouldBe false
        pool.running() shouldBe 1
        release.countDown()
        nextFinished().runKey shouldBe "healthy"
        pool.running() shouldBe 0
    }

    @Test
    fun `a queued run is withdrawn before it starts and never runs`() {
        newPool()
        val release = blocking("a")
        quick("b") shouldBe true
        pool.isQueued("b") shouldBe true
        pool.isRunning("b") shouldBe false
        pool.queued() shouldBe 1
        pool.withdraw("b") shouldBe true
        pool.isQueued("b") shouldBe false
        pool.queued() shouldBe 0
        quick("c") shouldBe true
        release.countDown()
        nextFinished().runKey shouldBe "a"
        nextFinished().runKey shouldBe "c"
        ran shouldContainExactly listOf("a", "c")
    }

    @Test
    fun `a run a worker already took is not withdrawn`() {
        newPool()
        val release = blocking("a")
        pool.isRunning("a") shouldBe true
        pool.withdraw("a") shouldBe false
        pool.isRunning("a") shouldBe true
        release.countDown()
        nextFinished().runKey shouldBe "a"
    }

    @Test
    fun `the pool forgets a run before it reports it finished`() {
        newPool()
        quick("a")
        val done = nextFinished()
        done.stillRunning shouldBe false
        done.stillQueued shouldBe false
        done.crash shouldBe null
    }

    @Test
    fun `a full queue turns runs away and counts them as queued until they are withdrawn`() {
        newPool(capacity = 1)
        val release = blocking("a")
        quick("b") shouldBe true
        quick("c") shouldBe false
        pool.queued() shouldBe 2
        gauges.last() shouldBe (1 to 2)
        pool.withdraw("c") shouldBe true
        pool.queued() shouldBe 1
        gauges.last() shouldBe (1 to 1)
        release.countDown()
        nextFinished().runKey shouldBe "a"
        nextFinished().runKey shouldBe "b"
    }

    @Test
    fun `a turned-away run that gets in later stops counting as turned away`() {
        newPool(capacity = 1)
        val release = blocking("a")
        quick("b")
        quick("c") shouldBe false
        release.countDown()
        nextFinished()
        nextFinished()
        quick("c") shouldBe true
        nextFinished().runKey shouldBe "c"
        pool.queued() shouldBe 0
    }

    @Test
    fun `a crashing warm-up is caught at the worker boundary and the worker goes on`() {
        newPool()
        pool.submit("a", "ns/a") { error("k6 binary vanished") }
        val crashed = nextFinished()
        crashed.crash?.message shouldBe "k6 binary vanished"
        crashed.stillRunning shouldBe false
        quick("b")
        nextFinished().runKey shouldBe "b"
    }

    @Test
    fun `a cancellation thrown by a warm-up ends that run, not the worker, and its pod still hears of it`() {
        newPool()
        pool.submit("a", "ns/a") { throw java.util.concurrent.CancellationException("cancelled mid-run") }
        nextFinished().crash.shouldNotBeNull()
        quick("b")
        nextFinished().runKey shouldBe "b"
    }

    @Test
    fun `an Error thrown by a warm-up still frees its slot and ends the run as crashed`() {
        newPool(slots = 1)
        pool.submit("a", "ns/a") { throw StackOverflowError("a warm-up recursed too deep") }
        nextFinished().crash.shouldBeInstanceOf<StackOverflowError>()
        pool.running() shouldBe 0
        quick("b")
        nextFinished().runKey shouldBe "b"
    }

    @Test
    fun `a slow cancel does not hold up the pool meanwhile`() {
        newPool(slots = 2)
        val started = CountDownLatch(1)
        val cancelling = CountDownLatch(1)
        val killed = CountDownLatch(1)
        pool.submit("a", "ns/a") { task ->
            // like K6Process.kill, which waits for the process to end
            task.process = SlowCancel(cancelling, killed)
            started.countDown()
            killed.await(10, TimeUnit.SECONDS)
        }
        started.await(10, TimeUnit.SECONDS) shouldBe true
        val cancel = thread { pool.cancelPod("ns/a") }
        try {
            cancelling.await(10, TimeUnit.SECONDS) shouldBe true
            CompletableFuture.supplyAsync { quick("b") }.get(5, TimeUnit.SECONDS) shouldBe true
            nextFinished().runKey shouldBe "b"
            pool.running() shouldBe 1
        } finally {
            killed.countDown()
            cancel.join()
        }
        nextFinished().runKey shouldBe "a"
    }

    /** An attempt whose [cancel] returns only once the process is [killed]. */
    private class SlowCancel(
        private val cancelling: CountDownLatch,
        private val killed: CountDownLatch,
    ) : RunningAttempt {
        override fun await() = K6Outcome.Cancelled

        override fun cancel() {
            cancelling.countDown()
            killed.await(10, TimeUnit.SECONDS)
        }

        override fun cleanUp() = Unit
    }

    @Test
    fun `one Deployment never holds more than its share, and another's run starts at once`() {
        newPool(slots = 4, shares = FairShare.of(4, 0.5, 1.0))
        val slow = RunOwner("shop", "slow")
        val releases = listOf("s1", "s2").map { blocking(it, slow) }
        pool.submit("s3", "ns/s3", slow) { ran += "s3" } shouldBe true
        pool.isQueued("s3") shouldBe true
        pool.running() shouldBe 2
        val fast = RunOwner("shop", "fast")
        val release = blocking("f1", fast)
        pool.isRunning("f1") shouldBe true
        release.countDown()
        nextFinished().runKey shouldBe "f1"
        pool.isQueued("s3") shouldBe true
        releases[0].countDown()
        // s3 starts when s1 frees its slot, and may report before s1 does
        setOf(nextFinished().runKey, nextFinished().runKey) shouldBe setOf("s1", "s3")
        releases[1].countDown()
        nextFinished().runKey shouldBe "s2"
    }

    @Test
    fun `one namespace never holds more than its share`() {
        newPool(slots = 4, shares = FairShare.of(4, 1.0, 0.5))
        val releases = listOf("a", "b").map { blocking(it, RunOwner("team-a", it)) }
        pool.submit("c", "ns/c", RunOwner("team-a", "c")) { ran += "c" }
        pool.isQueued("c") shouldBe true
        val other = blocking("d", RunOwner("team-b", "d"))
        pool.isRunning("d") shouldBe true
        (releases + other).forEach { it.countDown() }
        repeat(4) { nextFinished() }
        ran.toSet() shouldBe setOf("a", "b", "c", "d")
    }

    @Test
    fun `one node never warms more pods at once than its cap, and another node's pod starts at once`() {
        newPool(slots = 8, shares = FairShare.of(8, 1.0, 1.0))
        val app = RunOwner("shop", "exam")
        val releases = listOf("a", "b").map { blocking(it, app, PodNode("node-1", 2)) }
        pool.submit("c", "ns/c", app, PodNode("node-1", 2)) { ran += "c" } shouldBe true
        pool.isQueued("c") shouldBe true
        val other = blocking("d", app, PodNode("node-2", 1))
        pool.isRunning("d") shouldBe true
        pool.running() shouldBe 3
        pool.isQueued("c") shouldBe true
        releases[0].countDown()
        setOf(nextFinished().runKey, nextFinished().runKey) shouldBe setOf("a", "c")
        (listOf(releases[1], other)).forEach { it.countDown() }
        repeat(2) { nextFinished() }
        ran.toSet() shouldBe setOf("a", "b", "c", "d")
    }

    @Test
    fun `shares are at least one slot`() {
        FairShare.of(4, 0.01, 0.01) shouldBe FairShare(1, 1)
        FairShare.of(16, 0.5, 0.75) shouldBe FairShare(8, 12)
    }

    @Test
    fun `cancelling a pod drops its queued runs except the one to keep`() {
        newPool()
        val release = blocking("a")
        pool.submit("ns/p-r1", "ns/p") { ran += "p-r1" }
        pool.submit("ns/p-r2", "ns/p") { ran += "p-r2" }
        // nothing of p-r1 had started: no job of it is left to put back what it changed
        pool.cancelPod("ns/p", keep = "ns/p-r2") shouldBe emptySet()
        pool.isQueued("ns/p-r1") shouldBe false
        pool.isQueued("ns/p-r2") shouldBe true
        release.countDown()
        nextFinished().runKey shouldBe "a"
        nextFinished().runKey shouldBe "ns/p-r2"
        ran shouldContainExactly listOf("a", "p-r2")
    }

    @Test
    fun `cancelling a pod names the runs that had started, whose jobs end themselves`() {
        newPool()
        val release = blocking("a")
        pool.submit("ns/a-r2", "ns/a") { ran += "a-r2" }
        pool.cancelPod("ns/a") shouldBe setOf("a")
        release.countDown()
        nextFinished().runKey shouldBe "a"
        ran shouldContainExactly listOf("a")
    }

    private companion object {
        const val PAUSE_MILLIS = 200L
    }
}
