package dev.danki.operator.it

import com.sun.net.httpserver.HttpServer
import java.net.InetSocketAddress
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * A loopback HTTP server that k6 warms in the IT: answers every request with [status], or, with
 * [hang], holds every request open until closed (a pod that never answers keeps its warm-up slot).
 */
class TestTarget(
    private val status: Int = 200,
    private val hang: Boolean = false,
) : AutoCloseable {
    val requests = AtomicInteger()
    val warmupHeaders = AtomicInteger()
    private val closed = CountDownLatch(1)
    private val server =
        HttpServer.create(InetSocketAddress("127.0.0.1", 0), BACKLOG).apply {
            createContext("/") { exchange ->
                requests.incrementAndGet()
                if (hang) closed.await(HANG_SECONDS, TimeUnit.SECONDS)
                if (exchange.requestHeaders.getFirst("X-Danki-Warmup") == "1") warmupHeaders.incrementAndGet()
                val body = "ok".toByteArray()
                exchange.sendResponseHeaders(status, body.size.toLong())
                exchange.responseBody.use { it.write(body) }
            }
            executor = Executors.newFixedThreadPool(THREADS)
            start()
        }

    val port: Int get() = server.address.port

    override fun close() {
        closed.countDown()
        server.stop(0)
    }

    private companion object {
        const val BACKLOG = 128
        const val THREADS = 8
        const val HANG_SECONDS = 120L
    }
}
