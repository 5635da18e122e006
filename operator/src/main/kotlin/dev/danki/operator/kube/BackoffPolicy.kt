package dev.danki.operator.kube

import java.time.Duration
import kotlin.random.Random

/**
 * Capped exponential back-off with up to 20 % jitter: attempt 1 waits [base], each later attempt
 * doubles, never past [cap]. Jitter keeps many pods that failed together from retrying together.
 */
class BackoffPolicy(
    private val base: Duration,
    private val cap: Duration,
    private val random: Random = Random.Default,
) {
    init {
        require(!base.isNegative && !base.isZero) { "back-off base must be positive, was $base" }
        require(cap >= base) { "back-off cap $cap must be at least the base $base" }
    }

    /** The wait before retry number [attempt] (1-based). */
    fun delay(attempt: Int): Duration {
        val exponent = (attempt - 1).coerceIn(0, MAX_EXPONENT)
        val raw = base.toMillis() * (1L shl exponent)
        val capped = minOf(raw, cap.toMillis())
        val jitter = (capped * JITTER * random.nextDouble()).toLong()
        return Duration.ofMillis(minOf(capped + jitter, cap.toMillis()).coerceAtLeast(1))
    }

    companion object {
        /** 2^20 times any sane base is past every cap; stops the shift from overflowing. */
        private const val MAX_EXPONENT = 20
        private const val JITTER = 0.2

        /** Retry of a failed k6 attempt within the pod's timeout. */
        val WARMUP_ATTEMPT = BackoffPolicy(Duration.ofSeconds(2), Duration.ofSeconds(30))
    }
}
