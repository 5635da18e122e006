package dev.danki.operator.metrics

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import io.prometheus.metrics.exporter.httpserver.MetricsHandler
import java.net.InetSocketAddress
import java.util.concurrent.Executors

/**
 * The operator's one HTTP port: `/metrics` (Prometheus text), `/healthz` (the process can do its work:
 * no [problem] such as an informer that stopped or a worker that ended, which only a restart mends)
 * and `/readyz` (that, and the informer caches have synced, so this replica can take over as leader
 * at once). Both say what is wrong in the body.
 */
class HttpEndpoints(
    port: Int,
    metrics: WarmupMetrics,
    private val problem: () -> String? = { null },
    private val ready: () -> Boolean,
) {
    private val server: HttpServer =
        HttpServer.create(InetSocketAddress(port), BACKLOG).apply {
            createContext("/metrics", MetricsHandler(metrics.registry))
            createContext("/healthz") { exchange ->
                problem()?.let { answer(exchange, UNAVAILABLE, "$it\n") } ?: answer(exchange, OK, "ok\n")
            }
            createContext("/readyz") { exchange ->
                val why = problem() ?: "caches not synced".takeUnless { ready() }
                why?.let { answer(exchange, UNAVAILABLE, "$it\n") } ?: answer(exchange, OK, "ok\n")
            }
            createContext("/") { answer(it, NOT_FOUND, "not found\n") }
            executor = Executors.newFixedThreadPool(THREADS) { r -> Thread(r, "http").apply { isDaemon = true } }
        }

    /** The port actually bound (useful when 0 was asked for). */
    val port: Int get() = server.address.port

    fun start() = server.start()

    fun stop() = server.stop(0)

    private fun answer(exchange: HttpExchange, status: Int, body: String) {
        val bytes = body.toByteArray()
        exchange.responseHeaders.add("Content-Type", "text/plain; charset=utf-8")
        exchange.sendResponseHeaders(status, bytes.size.toLong())
        exchange.responseBody.use { it.write(bytes) }
    }

    companion object {
        private const val BACKLOG = 16
        private const val THREADS = 2
        private const val OK = 200
        private const val NOT_FOUND = 404
        private const val UNAVAILABLE = 503
    }
}
