package dev.danki.operator.webhook

import java.time.Duration
import java.time.Instant

/**
 * Holds a going replica until its webhook Service no longer routes admission reviews to it, so its
 * port stays open for every review still sent its way. [routed] answers true, false, or null when the
 * API cannot tell (waited on, like true). Once the EndpointSlice has dropped the replica, [CATCH_UP]
 * more: the API server (or kube-proxy) routes by its own watch of the endpoints, a moment behind.
 */
class WebhookDrain(
    private val routed: () -> Boolean?,
    private val sleep: (Duration) -> Unit = { Thread.sleep(it.toMillis()) },
    private val now: () -> Instant = Instant::now,
) {
    /** True when the Service let the replica go within [limit]; false when [limit] ran out first. */
    fun await(limit: Duration): Boolean {
        val deadline = now() + limit
        while (routed() != false) {
            if (!now().isBefore(deadline)) return false
            sleep(POLL)
        }
        sleep(CATCH_UP)
        return true
    }

    companion object {
        val POLL: Duration = Duration.ofMillis(500)
        val CATCH_UP: Duration = Duration.ofSeconds(2)
    }
}
