package dev.danki.operator.webhook

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpsConfigurator
import com.sun.net.httpserver.HttpsServer
import org.slf4j.LoggerFactory
import java.net.InetSocketAddress
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import javax.net.ssl.SSLContext

/**
 * The webhook's HTTPS port: `POST /mutate-pods` answers AdmissionReviews with [PodAdmission]. The TLS
 * key comes from [keys] at each handshake, so a rotated certificate needs no restart.
 */
class WebhookServer(
    port: Int,
    keys: ServingKeys,
    private val admission: PodAdmission,
) {
    private val log = LoggerFactory.getLogger(WebhookServer::class.java)
    private val executor: ExecutorService =
        Executors.newFixedThreadPool(THREADS) { r -> Thread(r, "webhook").apply { isDaemon = true } }
    private val server: HttpsServer =
        HttpsServer.create(InetSocketAddress(port), BACKLOG).apply {
            val tls = SSLContext.getInstance("TLS").apply { init(arrayOf(keys), null, null) }
            httpsConfigurator = HttpsConfigurator(tls)
            createContext(PATH, ::handle)
            executor = this@WebhookServer.executor
        }

    /** The port actually bound (useful when 0 was asked for). */
    val port: Int get() = server.address.port

    fun start() = server.start()

    fun stop() {
        server.stop(0)
        executor.shutdownNow()
    }

    private fun handle(exchange: HttpExchange) {
        exchange.use {
            if (it.requestMethod != "POST") return it.sendResponseHeaders(METHOD_NOT_ALLOWED, -1)
            val answer =
                try {
                    admission.review(it.requestBody.readNBytes(MAX_BODY))
                } catch (
                    @Suppress("TooGenericExceptionCaught") e: Exception,
                ) {
                    // a request danki cannot read: the API server applies failurePolicy (Ignore: the pod is created)
                    log.atWarn().setCause(e).log("admission review failed")
                    return it.sendResponseHeaders(BAD_REQUEST, -1)
                }
            it.responseHeaders.add("Content-Type", "application/json")
            it.sendResponseHeaders(OK, answer.size.toLong())
            it.responseBody.write(answer)
        }
    }

    companion object {
        const val PATH = "/mutate-pods"
        private const val BACKLOG = 64

        /** The API server waits at most the webhook's timeout (a few seconds); a lookup in the cache is quick. */
        private const val THREADS = 4

        /** A pod is far below this; the API server caps requests at 3 MiB. */
        private const val MAX_BODY = 4 * 1024 * 1024
        private const val OK = 200
        private const val BAD_REQUEST = 400
        private const val METHOD_NOT_ALLOWED = 405
    }
}
