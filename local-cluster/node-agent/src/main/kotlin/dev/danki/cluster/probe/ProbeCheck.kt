package dev.danki.cluster.probe

import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.IntOrString
import io.fabric8.kubernetes.api.model.Probe
import java.io.IOException
import java.net.HttpURLConnection
import java.net.InetSocketAddress
import java.net.Socket
import java.net.URI

/** The outcome of one probe attempt, with the reason shown in logs and events when it failed. */
data class ProbeOutcome(
    val success: Boolean,
    val detail: String,
)

/**
 * Runs one httpGet or tcpSocket probe against a pod address from the host, as the kubelet does
 * from the node. A handler the agent does not support (exec, grpc) always fails, with a message
 * that says so, so a misconfigured pod is visible rather than silently healthy.
 */
class ProbeCheck(
    private val probe: Probe,
    private val container: Container,
    private val podIp: String,
) {
    fun run(): ProbeOutcome {
        val timeoutMs = ProbeSettings.of(probe).timeoutSeconds * MILLIS
        return try {
            when {
                probe.httpGet != null -> http(timeoutMs)
                probe.tcpSocket != null -> tcp(timeoutMs)
                else -> ProbeOutcome(false, UNSUPPORTED)
            }
        } catch (e: IOException) {
            ProbeOutcome(false, "${e.javaClass.simpleName}: ${e.message}")
        } catch (e: IllegalArgumentException) {
            ProbeOutcome(false, e.message ?: "bad probe")
        }
    }

    private fun http(timeoutMs: Int): ProbeOutcome {
        val get = probe.httpGet
        val scheme = (get.scheme ?: "HTTP").lowercase()
        require(scheme == "http") { "httpGet scheme ${get.scheme} is not supported by the local node agent" }
        val host = get.host?.takeIf { it.isNotBlank() } ?: podIp
        val path = get.path?.let { if (it.startsWith("/")) it else "/$it" } ?: "/"
        val url = URI("http://$host:${port(get.port)}$path").toURL()
        val connection = url.openConnection() as HttpURLConnection
        try {
            connection.connectTimeout = timeoutMs
            connection.readTimeout = timeoutMs
            connection.instanceFollowRedirects = false
            connection.setRequestProperty("User-Agent", "kube-probe/1.37")
            get.httpHeaders.orEmpty().forEach { connection.setRequestProperty(it.name, it.value) }
            val code = connection.responseCode
            // Same rule as the kubelet: 200 <= code < 400 passes.
            return ProbeOutcome(code in HTTP_OK_FROM until HTTP_OK_UNTIL, "HTTP $code from $url")
        } finally {
            connection.disconnect()
        }
    }

    private fun tcp(timeoutMs: Int): ProbeOutcome {
        val host = probe.tcpSocket.host?.takeIf { it.isNotBlank() } ?: podIp
        val port = port(probe.tcpSocket.port)
        Socket().use { it.connect(InetSocketAddress(host, port), timeoutMs) }
        return ProbeOutcome(true, "connected to $host:$port")
    }

    /** A probe port is a number or the name of one of the container's ports. */
    private fun port(value: IntOrString?): Int {
        requireNotNull(value) { "probe has no port" }
        value.intVal?.let { return it }
        val name = value.strVal
        return container.ports
            .orEmpty()
            .firstOrNull { it.name == name }
            ?.containerPort
            ?: name.toIntOrNull()
            ?: throw IllegalArgumentException("probe port '$name' names no port of container ${container.name}")
    }

    private companion object {
        const val MILLIS = 1000
        const val UNSUPPORTED = "probe handler not supported by the local node agent (only httpGet and tcpSocket)"
        const val HTTP_OK_FROM = 200
        const val HTTP_OK_UNTIL = 400
    }
}
