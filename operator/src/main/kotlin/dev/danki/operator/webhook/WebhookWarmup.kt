package dev.danki.operator.webhook

import org.slf4j.LoggerFactory
import java.io.IOException
import java.net.InetAddress
import java.time.Duration
import javax.net.ssl.SSLContext
import javax.net.ssl.SSLSocket

/**
 * Warms this replica's webhook before it reports ready, so that the API server never waits on a cold
 * JVM: the danki webhook is a JVM service too. Measured on the race test: right after an install, the
 * first admissions of a burst took over the API server's 3 s and the pods were created ungated.
 *
 * [ROUNDS] AdmissionReviews of a pod of a Deployment that does not exist go through the real HTTPS port
 * on loopback (TLS handshake, Jetty, JSON, the lookup, a read past the cache), so they show in
 * `danki_webhook_admissions_total{result="unchanged"}` and `danki_webhook_api_reads_total{result="not_found"}`,
 * [ROUNDS] per replica start. Best effort and bounded in time: a warm-up that fails still ends, and the
 * replica becomes ready colder.
 */
class WebhookWarmup(
    private val port: () -> Int,
    private val keys: ServingKeys,
    /** The namespace the sample pod claims to be in: danki's own, which the webhook is never called for. */
    private val namespace: String,
) {
    private val log = LoggerFactory.getLogger(WebhookWarmup::class.java)

    @Volatile var done: Boolean = false
        private set

    /** Starts warming on a thread of its own once a certificate is loaded; [done] turns true at the end. */
    fun start() {
        Thread(::run, "danki-webhook-warmup").apply { isDaemon = true }.start()
    }

    private fun run() {
        val started = System.nanoTime()
        val deadline = started + LIMIT.toNanos()
        try {
            while (!keys.loaded() && System.nanoTime() < deadline) Thread.sleep(POLL_MILLIS)
            val served = keys.serving()
            var answered = 0
            if (served != null) {
                // trusts exactly the certificate this replica serves; a raw socket checks no host name
                val tls = Certificates.clientTrusting(served)
                while (answered < ROUNDS && System.nanoTime() < deadline) {
                    post(tls, answered)
                    answered++
                }
            }
            log
                .atInfo()
                .addKeyValue("reviews", answered)
                .addKeyValue("millis", (System.nanoTime() - started) / NANOS_PER_MILLI)
                .log("webhook warmed")
        } catch (e: IOException) {
            log.atWarn().setCause(e).log("webhook warm-up failed; the replica becomes ready without it")
        } catch (e: InterruptedException) {
            Thread.currentThread().interrupt()
        } finally {
            done = true
        }
    }

    /** One AdmissionReview over a fresh TLS connection, as the API server sends it; the answer is read whole. */
    private fun post(tls: SSLContext, i: Int) {
        val body = review(i).toByteArray()
        (tls.socketFactory.createSocket(InetAddress.getLoopbackAddress(), port()) as SSLSocket).use { socket ->
            socket.soTimeout = SOCKET_TIMEOUT_MILLIS
            val head =
                "POST ${WebhookServer.PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
                    "Content-Length: ${body.size}\r\nConnection: close\r\n\r\n"
            socket.outputStream.apply {
                write(head.toByteArray())
                write(body)
                flush()
            }
            socket.inputStream.readAllBytes()
        }
    }

    private fun review(i: Int) =
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"danki-warmup-$i",
         "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"$namespace",
         "object":{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"danki-warmup-0-",
           "labels":{"pod-template-hash":"0"},
           "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"danki-warmup-0",
             "uid":"00000000-0000-0000-0000-000000000000","controller":true}]},
          "spec":{"containers":[{"name":"app","image":"danki-warmup"}]}}}}
        """.trimIndent()

    private companion object {
        /** Enough to load every class of the path and have the JIT's first tier compile it; about a second. */
        const val ROUNDS = 100
        val LIMIT: Duration = Duration.ofSeconds(30)
        const val POLL_MILLIS = 100L
        const val SOCKET_TIMEOUT_MILLIS = 5_000
        const val NANOS_PER_MILLI = 1_000_000
    }
}
