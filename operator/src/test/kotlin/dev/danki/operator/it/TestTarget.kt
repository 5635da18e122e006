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
 * Its `/metrics` page plays a JVM's JIT counter: 100 ms of compiling per request for the first
 * [jitBusyRequests] requests, then none, as a JIT that has compiled what the traffic runs; with
 * [cpuMsPerRequest], also the process CPU counter, that many CPU ms per request.
 */
class TestTarget(
    /** The answer's status; a test may change it while the target runs (a pod that recovers). */
    @Volatile var status: Int = 200,
    private val hang: Boolean = false,
    private val jitBusyRequests: Int = 0,
    /** Answers every request with 307 to this URL instead (a pod trying to send the warm-up elsewhere). */
    private val redirectTo: String? = null,
    private val cpuMsPerRequest: Double? = null,
) : AutoCloseable {
    val requests = AtomicInteger()
    val warmupHeaders = AtomicInteger()
    private val closed = CountDownLatch(1)
    private val server =
        HttpServer.create(InetSocketAddress("127.0.0.1", 0), BACKLOG).apply {
            createContext("/metrics") { exchange ->
                val compiled = minOf(requests.get(), jitBusyRequests) * JIT_MS_PER_REQUEST
                val cpu =
                    cpuMsPerRequest?.let {
                        "# TYPE process_cpu_seconds_total counter\n" +
                            "process_cpu_seconds_total ${requests.get() * it / MS_PER_SECOND}\n"
                    } ?: ""
                val body = "# TYPE jvm_compilation_time_ms_total counter\njvm_compilation_time_ms_total $compiled\n$cpu"
                val bytes = body.toByteArray()
                exchange.sendResponseHeaders(HTTP_OK, bytes.size.toLong())
                exchange.responseBody.use { it.write(bytes) }
            }
            createContext("/") { exchange ->
                requests.incrementAndGet()
                if (hang) closed.await(HANG_SECONDS, TimeUnit.SECONDS)
                if (exchange.requestHeaders.getFirst("X-Danki-Warmup") == "1") warmupHeaders.incrementAndGet()
                val body = "ok".toByteArray()
                if (redirectTo != null) exchange.responseHeaders.add("Location", redirectTo)
                exchange.sendResponseHeaders(if (redirectTo != null) TEMPORARY_REDIRECT else status, body.size.toLong())
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
        const val JIT_MS_PER_REQUEST = 100
        const val MS_PER_SECOND = 1000.0
        const val HTTP_OK = 200
        const val TEMPORARY_REDIRECT = 307
    }
}
