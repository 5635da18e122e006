package dev.danki.operator.kube

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.comparables.shouldBeGreaterThanOrEqualTo
import io.kotest.matchers.comparables.shouldBeLessThanOrEqualTo
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import kotlin.random.Random

class BackoffPolicyTest {
    /** nextDouble() of 0.0 (no jitter) or just under 1.0 (the most jitter). */
    private fun fixedRandom(max: Boolean) =
        object : Random() {
            override fun nextBits(bitCount: Int) = if (max) -1 ushr (Int.SIZE_BITS - bitCount) else 0
        }

    private val base = Duration.ofSeconds(2)
    private val cap = Duration.ofSeconds(30)

    @Test
    fun `without jitter the wait doubles from the base up to the cap`() {
        val policy = BackoffPolicy(base, cap, fixedRandom(max = false))
        (1..7).map { policy.delay(it).seconds } shouldBe listOf(2L, 4L, 8L, 16L, 30L, 30L, 30L)
    }

    @Test
    fun `jitter adds at most a fifth and never passes the cap`() {
        val policy = BackoffPolicy(base, cap, fixedRandom(max = true))
        policy.delay(1) shouldBeGreaterThanOrEqualTo Duration.ofMillis(2_399)
        policy.delay(1) shouldBeLessThanOrEqualTo Duration.ofMillis(2_400)
        policy.delay(4) shouldBeLessThanOrEqualTo Duration.ofMillis(19_200)
        policy.delay(5) shouldBe cap
    }

    @Test
    fun `any jitter stays within the attempt's bounds`() {
        val policy = BackoffPolicy(base, cap, Random(42))
        for (attempt in 1..10) {
            val raw = minOf(base.toMillis() shl (attempt - 1), cap.toMillis())
            policy.delay(attempt).toMillis() shouldBeGreaterThanOrEqualTo raw
            policy.delay(attempt).toMillis() shouldBeLessThanOrEqualTo minOf(raw * 6 / 5, cap.toMillis())
        }
    }

    @Test
    fun `huge and nonsensical attempt numbers neither overflow nor go below the base`() {
        val policy = BackoffPolicy(base, cap, fixedRandom(max = false))
        policy.delay(Int.MAX_VALUE) shouldBe cap
        policy.delay(0) shouldBe base
        policy.delay(-3) shouldBe base
    }

    @Test
    fun `a zero base or a cap below the base is rejected`() {
        shouldThrow<IllegalArgumentException> { BackoffPolicy(Duration.ZERO, cap) }
        shouldThrow<IllegalArgumentException> { BackoffPolicy(cap, base) }
    }
}
