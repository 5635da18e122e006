package dev.danki.operator.webhook

import org.eclipse.jetty.http.HttpHeader
import org.eclipse.jetty.http.HttpMethod
import org.eclipse.jetty.http.HttpStatus
import org.eclipse.jetty.io.Content
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.server.Request
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.server.Server
import org.eclipse.jetty.server.ServerConnector
import org.eclipse.jetty.util.Callback
import org.eclipse.jetty.util.ssl.SslContextFactory
import org.eclipse.jetty.util.thread.QueuedThreadPool
import org.slf4j.LoggerFactory
import java.nio.ByteBuffer
import java.time.Duration
import javax.net.ssl.SSLContext

/**
 * The webhook's HTTPS port: `POST /mutate-pods` answers AdmissionReviews with [PodAdmission]. The TLS
 * key comes from [keys] at each handshake, so a rotated certificate needs no restart.
 *
 * Jetty rather than the JDK's HttpsServer: the JDK's server looks up the client's host name by reverse
 * DNS before every TLS handshake (`SSLStreams` calls `getHostName()`), so with a slow or unreachable
 * resolver each admission waits for the DNS timeout and the API server gives up on the webhook first.
 */
class WebhookServer(
    port: Int,
    keys: ServingKeys,
    private val admission: PodAdmission,
) {
    private val log = LoggerFactory.getLogger(WebhookServer::class.java)
    private val server = Server(QueuedThreadPool(MAX_THREADS, MIN_THREADS).apply { name = "webhook" })
    private val connector: ServerConnector

    init {
        val tls =
            SslContextFactory.Server().apply {
                sslContext = SSLContext.getInstance("TLS").apply { init(arrayOf(keys), null, null) }
            }
        connector =
            ServerConnector(server, tls).apply {
                this.port = port
                idleTimeout = IDLE_TIMEOUT.toMillis()
            }
        server.addConnector(connector)
        server.handler = Admissions()
    }

    /** How long an idle connection is kept open; see [IDLE_TIMEOUT]. */
    val idleTimeout: Duration get() = Duration.ofMillis(connector.idleTimeout)

    /** The port actually bound (useful when 0 was asked for); valid after [start]. */
    val port: Int get() = connector.localPort

    fun start() = server.start()

    fun stop() = server.stop()

    private inner class Admissions : Handler.Abstract() {
        override fun handle(request: Request, response: Response, callback: Callback): Boolean {
            val status = statusFor(request)
            if (status != null) {
                Response.writeError(request, response, callback, status)
                return true
            }
            val answer =
                try {
                    admission.reviewAsync(Content.Source.asInputStream(request).readNBytes(MAX_BODY))
                } catch (
                    @Suppress("TooGenericExceptionCaught") e: Exception,
                ) {
                    // a request danki cannot read: the API server applies failurePolicy (Ignore: the pod is created)
                    log.atWarn().setCause(e).log("admission review failed")
                    Response.writeError(request, response, callback, HttpStatus.BAD_REQUEST_400)
                    return true
                }
            // answered from whichever thread completes it: no Jetty thread waits for a read past the cache
            answer.whenComplete { body, error ->
                if (error != null) {
                    log.atWarn().setCause(error).log("admission review failed")
                    Response.writeError(request, response, callback, HttpStatus.INTERNAL_SERVER_ERROR_500)
                } else {
                    response.status = HttpStatus.OK_200
                    response.headers.put(HttpHeader.CONTENT_TYPE, "application/json")
                    response.write(true, ByteBuffer.wrap(body), callback)
                }
            }
            return true
        }

        private fun statusFor(request: Request): Int? =
            when {
                Request.getPathInContext(request) != PATH -> HttpStatus.NOT_FOUND_404
                request.method != HttpMethod.POST.asString() -> HttpStatus.METHOD_NOT_ALLOWED_405
                else -> null
            }
    }

    companion object {
        const val PATH = "/mutate-pods"

        /**
         * A lookup in the cache is quick, and a review that needs a read past it waits for it without a
         * thread (OptInLookup's read threads do the reading), so a few threads answer every review.
         */
        private const val MAX_THREADS = 8

        /** Jetty's acceptor and selector take threads of their own out of the pool. */
        private const val MIN_THREADS = 4

        /**
         * Longer than the API server keeps an idle connection to a webhook (Go's 90 s IdleConnTimeout), so
         * the API server always closes first. With Jetty's default 30 s, Jetty could close a connection just
         * as the API server sent a pod's review on it: Go does not resend a POST, so the call failed and the
         * pod was admitted without the gate (failurePolicy Ignore).
         */
        val IDLE_TIMEOUT: Duration = Duration.ofMinutes(2)

        /** A pod is far below this; the API server caps requests at 3 MiB. */
        private const val MAX_BODY = 4 * 1024 * 1024
    }
}
