package dev.danki.operator.webhook

import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

class CertificateRotationTest {
    @Test
    fun `a check that throws an Error is tried again, and the loop goes on`() {
        val checks = AtomicInteger()
        val third = CountDownLatch(1)
        val check = {
            val n = checks.incrementAndGet()
            if (n == 3) third.countDown()
            // an Error, not an Exception: a class that failed to load, say
            if (n == 1) throw NoClassDefFoundError("io/example/Missing")
            error("Secret danki-webhook-tls not found")
        }
        val rotation = CertificateRotation(check, ServingKeys(), Duration.ofMinutes(10), retry = Duration.ofMillis(10))
        rotation.start()
        try {
            third.await(10, TimeUnit.SECONDS) shouldBe true
        } finally {
            rotation.stop()
        }
    }
}
