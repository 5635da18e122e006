package dev.danki.operator.it

import java.time.Duration

/**
 * Retries [check] until it passes or [timeout] ends, then fails with its last error. Assertion errors
 * and runtime exceptions (a missing object, a null field) count as "not yet". Bounded in time.
 */
fun <T> eventually(timeout: Duration, check: () -> T): T {
    val end = System.nanoTime() + timeout.toNanos()
    while (true) {
        val result = runCatching(check)
        result.onSuccess { return it }
        val error = result.exceptionOrNull()
        if (error !is AssertionError && error !is RuntimeException) throw error!!
        if (System.nanoTime() > end) throw AssertionError("not true after $timeout: ${error.message}", error)
        Thread.sleep(POLL_MILLIS)
    }
}

private const val POLL_MILLIS = 200L

/**
 * Checks [check] again and again for [period]: the first failure fails at once. For "nothing happens"
 * claims, which only mean something once the operator is known to have looked (see its callers).
 */
fun continually(period: Duration, check: () -> Unit) {
    val end = System.nanoTime() + period.toNanos()
    while (System.nanoTime() < end) {
        check()
        Thread.sleep(POLL_MILLIS)
    }
}
