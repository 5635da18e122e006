package dev.danki.operator.warmup

/** Where a pod's Prometheus page is: a container port and a path, e.g. `8080` and `/metrics`. */
data class JitMetrics(
    val port: Int,
    val path: String = DEFAULT_PATH,
) {
    companion object {
        const val DEFAULT_PATH = "/metrics"
    }
}
