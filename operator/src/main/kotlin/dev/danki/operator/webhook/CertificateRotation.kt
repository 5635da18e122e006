package dev.danki.operator.webhook

import org.slf4j.LoggerFactory
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit

/**
 * Runs [source]'s check at start and then every [every] on a thread of its own; after [retry] instead
 * while no certificate is loaded yet (a replica without one is not ready) or after a failed check.
 */
class CertificateRotation(
    private val source: CertificateSource,
    private val keys: ServingKeys,
    private val every: Duration,
    private val retry: Duration = RETRY,
) {
    private val log = LoggerFactory.getLogger(CertificateRotation::class.java)
    private val scheduler: ScheduledExecutorService =
        Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "webhook-certificates").apply { isDaemon = true } }

    fun start() {
        scheduler.execute(::checkAndReschedule)
    }

    fun stop() {
        scheduler.shutdownNow()
    }

    private fun checkAndReschedule() {
        val ok =
            try {
                source.check()
                true
            } catch (
                @Suppress("TooGenericExceptionCaught") e: Throwable,
            ) {
                // The worker boundary: a failed check (API server away, Secret missing) is tried again soon.
                // Errors too: one thrown here would end the loop unseen, and the replica would serve its
                // certificate until it expired.
                log.atWarn().setCause(e).log("webhook certificate check failed")
                false
            }
        val delay = if (ok && keys.loaded()) every else minOf(every, retry)
        if (!scheduler.isShutdown) scheduler.schedule(::checkAndReschedule, delay.toMillis(), TimeUnit.MILLISECONDS)
    }

    private companion object {
        /** Soon enough that a new replica becomes ready within seconds, rare enough not to load the API server. */
        val RETRY: Duration = Duration.ofSeconds(2)
    }
}
