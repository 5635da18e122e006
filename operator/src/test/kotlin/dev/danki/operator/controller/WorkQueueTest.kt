package dev.danki.operator.controller

import dev.danki.operator.kube.BackoffPolicy
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration

class WorkQueueTest {
    @Test
    fun `a key is queued once however often it is added`() {
        val queue = WorkQueue<String>("t")
        repeat(5) { queue.add("a") }
        queue.add("b")
        queue.size() shouldBe 2
        queue.shutdown()
    }

    @Test
    fun `a key added while in progress is handed out again after done`() {
        val queue = WorkQueue<String>("t")
        queue.add("a")
        val key = queue.take()
        queue.add("a")
        queue.size() shouldBe 0
        queue.done(key!!)
        queue.size() shouldBe 1
        queue.take() shouldBe "a"
        queue.shutdown()
    }

    @Test
    fun `delayed adds arrive after their delay and take returns null after shutdown`() {
        val queue = WorkQueue<String>("t")
        val start = System.nanoTime()
        queue.addAfter("late", Duration.ofMillis(100))
        queue.take() shouldBe "late"
        (System.nanoTime() - start) / 1_000_000 shouldBeLessThan 2_000
        queue.shutdown()
        queue.take() shouldBe null
    }

    @Test
    fun `back-off doubles up to its cap`() {
        val policy = BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), kotlin.random.Random(1))
        val delays = (1..6).map { policy.delay(it).toMillis() }
        delays[0] shouldBe delays[0].coerceIn(100, 120)
        delays[1] shouldBe delays[1].coerceIn(200, 240)
        delays[5] shouldBe 1000
    }
}
