package dev.danki.operator.history

import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

class BoundedWriterTest {
    @Test
    fun `tasks beyond the capacity are refused while the writer is busy, and run in order`() {
        val release = CountDownLatch(1)
        val running = CountDownLatch(1)
        val queuedDone = CountDownLatch(2)
        val done = Collections.synchronizedList(mutableListOf<Int>())
        BoundedWriter("test-writer", capacity = 2).use { writer ->
            writer.submit {
                running.countDown()
                release.await()
            } shouldBe true
            running.await(5, TimeUnit.SECONDS) shouldBe true
            for (i in 1..2) {
                writer.submit {
                    done += i
                    queuedDone.countDown()
                } shouldBe true
            }
            writer.submit { done += 3 } shouldBe false
            release.countDown()
            queuedDone.await(5, TimeUnit.SECONDS) shouldBe true
            // room again once the queue drained
            writer.submit { done += 4 } shouldBe true
        }
        done.take(2) shouldBe listOf(1, 2)
        (3 in done) shouldBe false
    }
}
