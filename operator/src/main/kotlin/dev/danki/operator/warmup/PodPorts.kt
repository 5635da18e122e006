package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys.Annotations
import io.fabric8.kubernetes.api.model.ContainerPort
import io.fabric8.kubernetes.api.model.PodSpec

/** The ports a plan names: where k6 sends requests, and where the pod's JVM metrics page is. */
object PodPorts {
    const val MAX_PORT = 65_535
    const val DEFAULT_PORT_NAME = "http"

    /** The warm-up port: the annotation's number or name, else the port named http, else the first. */
    fun resolve(raw: String?, podSpec: PodSpec?, problems: MutableList<ConfigProblem>): Int? {
        val ports = podSpec?.containers.orEmpty().flatMap { it.ports.orEmpty() }
        if (raw == null) {
            val port = (ports.firstOrNull { it.name == DEFAULT_PORT_NAME } ?: ports.firstOrNull())?.containerPort
            if (port == null) {
                problems += ConfigProblem(Annotations.PORT, "", "a port: the pod declares no containerPort")
            }
            return port
        }
        val port = portOf(raw.trim(), ports)
        if (port == null) problems += ConfigProblem(Annotations.PORT, raw, PORT_EXPECTED + namesOf(ports))
        return port
    }

    /** A port number, or the number of the containerPort of that name; null when it is neither. */
    private fun portOf(raw: String, ports: List<ContainerPort>): Int? {
        val number = raw.toIntOrNull()
        return when {
            number != null -> number.takeIf { it in 1..MAX_PORT }
            PORT_NAME.matches(raw) -> ports.firstOrNull { it.name == raw }?.containerPort
            else -> null
        }
    }

    /** `<port or name>[/path]`: where the pod's JVM metrics page is. */
    fun jitMetrics(raw: String, podSpec: PodSpec?): JitMetrics? {
        val text = raw.trim()
        val slash = text.indexOf('/')
        val portPart = if (slash < 0) text else text.substring(0, slash)
        val path = if (slash < 0) JitMetrics.DEFAULT_PATH else text.substring(slash)
        if (!METRICS_PATH.matches(path)) return null
        val port = portOf(portPart, podSpec?.containers.orEmpty().flatMap { it.ports.orEmpty() }) ?: return null
        return JitMetrics(port, path)
    }

    private fun namesOf(ports: List<ContainerPort>): String {
        val names = ports.mapNotNull { it.name }
        return if (names.isEmpty()) " (the pod names no port)" else " (named ports: ${names.joinToString(", ")})"
    }

    private val PORT_NAME = Regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?")

    /** An absolute path of URL-safe characters, no query: the scrape URL is built from it as is. */
    private val METRICS_PATH = Regex("/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*")
    private const val PORT_EXPECTED = "a port number from 1 to 65535 or the name of a containerPort"
}
