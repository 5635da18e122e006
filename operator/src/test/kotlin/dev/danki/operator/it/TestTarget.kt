package dev.danki.operator.it

import com.sun.net.httpserver.HttpServer
import java.net.InetSocketAddress
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/** A loopback HTTP server that k6 warms in the IT: answers every request with [status]. */
class TestTarget(
    private val status: Int = 200,
) : AutoCloseable {
    val requests = AtomicInteger()
    val warmupHeaders = AtomicInteger()
    private val server =
        HttpServer.create(InetSocketAddress("127.0.0.1", 0), BACKLOG).apply {
            createContext("/") { exchange ->
                requests.incrementAndGet()
                if (exchange.requestHeaders.getFirst("X-Danki-Warmup") == "1") warmupHeaders.incrementAndGet()
                val body = "ok".toByteArray()
                exchange.sendResponseHeaders(status, body.size.toLong())
                exchange.responseBody.use { it.write(body) }
            }
            executor = Executors.newFixedThreadPool(THREADS)
            start()
        }

    val port: Int get() = server.address.port

    override fun close() = server.stop(0)

    private companion object {
        const val BACKLOG = 128
        const val THREADS = 8
    }
}
