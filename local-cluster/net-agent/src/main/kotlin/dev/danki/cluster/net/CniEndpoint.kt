package dev.danki.cluster.net

import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.ObjectMapper
import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import dev.danki.cluster.logging.warnWith
import org.slf4j.LoggerFactory
import java.net.InetSocketAddress
import java.util.concurrent.Executors

/** What the CNI plugin sends: the sandbox, its namespace path and address, and the pod (from CNI_ARGS). */
data class CniRequest(
    val containerId: String = "",
    val netns: String = "",
    val ip: String = "",
    val namespace: String = "",
    val name: String = "",
)

/** What the agent does for the CNI plugin; the plugin's ADD fails when [add] throws. */
interface CniHandler {
    fun add(request: CniRequest)

    fun del(request: CniRequest)
}

/**
 * The agent's HTTP endpoint on loopback, which `local-cluster/kubelet/cni-danki-net` calls:
 * `POST /add` and `POST /del` with a [CniRequest] (200, or 500 with the reason as text), and
 * `GET /healthz` (200 once the agent serves). JDK's HTTP server: nothing more is needed here.
 */
class CniEndpoint(
    private val port: Int,
    private val handler: CniHandler,
) {
    private val log = LoggerFactory.getLogger(CniEndpoint::class.java)
    private val mapper = ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
    private val executor = Executors.newFixedThreadPool(THREADS)
    private var server: HttpServer? = null

    fun start() {
        val http = HttpServer.create(InetSocketAddress("127.0.0.1", port), BACKLOG)
        http.executor = executor
        http.createContext("/healthz") { exchange -> respond(exchange, OK, "ok") }
        http.createContext("/add") { exchange -> serve(exchange, handler::add) }
        http.createContext("/del") { exchange -> serve(exchange, handler::del) }
        http.start()
        server = http
    }

    fun stop() {
        server?.stop(0)
        executor.shutdownNow()
    }

    /** The boundary of one request: any failure becomes a 500 with its message, which the plugin reports. */
    @Suppress("TooGenericExceptionCaught")
    private fun serve(exchange: HttpExchange, action: (CniRequest) -> Unit) {
        if (exchange.requestMethod != "POST") return respond(exchange, NOT_ALLOWED, "POST only")
        val request =
            try {
                mapper.readValue(exchange.requestBody, CniRequest::class.java)
            } catch (e: java.io.IOException) {
                return respond(exchange, BAD_REQUEST, "bad request: ${e.message}")
            }
        try {
            action(request)
            respond(exchange, OK, "ok")
        } catch (e: Exception) {
            log.warnWith(
                "cni request failed",
                "path" to exchange.requestURI.path,
                "namespace" to request.namespace,
                "pod" to request.name,
                error = e,
            )
            respond(exchange, FAILED, e.message ?: e.javaClass.simpleName)
        }
    }

    private fun respond(exchange: HttpExchange, code: Int, body: String) {
        val bytes = body.toByteArray()
        exchange.sendResponseHeaders(code, bytes.size.toLong())
        exchange.responseBody.use { it.write(bytes) }
    }

    private companion object {
        const val THREADS = 4
        const val BACKLOG = 16
        const val OK = 200
        const val BAD_REQUEST = 400
        const val NOT_ALLOWED = 405
        const val FAILED = 500
    }
}
