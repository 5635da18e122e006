package dev.danki.operator.e2e

import java.io.File
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.TimeUnit

/** The operator as users run it: `java -jar operator-all.jar`, a separate process the test starts and kills. */
class OperatorProcess(
    val identity: String,
    namespaces: List<String>,
    leaseNamespace: String,
    logDir: File,
    /** More settings (DANKI_CONCURRENCY, ...), over the defaults below. */
    env: Map<String, String> = emptyMap(),
    /** The operator-all.jar to run (by default DANKI_OPERATOR_JAR, else this tree's). */
    build: File? = null,
) {
    private val repo = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    private val jar =
        build?.path ?: System.getenv("DANKI_OPERATOR_JAR") ?: File(repo, "operator/target/operator-all.jar").path
    private val script = File(repo, "k6-scripts/warmup.js").path
    val port = ServerSocket(0).use { it.localPort }
    val log = File(logDir, "$identity.log")
    private val process: Process =
        ProcessBuilder("java", "-jar", jar)
            .redirectErrorStream(true)
            .redirectOutput(log)
            .apply {
                environment().putAll(
                    mapOf(
                        "DANKI_WATCH_NAMESPACES" to namespaces.joinToString(","),
                        "DANKI_LEADER_ELECTION" to "true",
                        // these suites test opting in by patching the template (webhook mode: WebhookE2E)
                        "DANKI_GATE_INJECTION" to "template",
                        "DANKI_LEASE_NAME" to E2eCluster.LEASE_NAME,
                        "DANKI_LEASE_NAMESPACE" to leaseNamespace,
                        "POD_NAME" to identity,
                        "DANKI_HTTP_PORT" to port.toString(),
                        "DANKI_K6_BINARY" to (System.getenv("DANKI_K6_BINARY") ?: File(repo, "bin/k6").path),
                        "DANKI_K6_SCRIPT" to (System.getenv("DANKI_K6_SCRIPT") ?: script),
                        "DANKI_LOG_FORMAT" to "json",
                        // custom flows (danki.dev/script): the runner image the local cluster's nodes hold
                        "DANKI_RUNNER_IMAGE" to "danki/k6-runner:dev",
                    ) + env,
                )
            }.start()

    val pid: Long get() = process.pid()

    fun isAlive() = process.isAlive

    /** k6 processes this operator started and that still run. */
    fun k6Children(): List<ProcessHandle> =
        process
            .descendants()
            .filter {
                it
                    .info()
                    .command()
                    .orElse("")
                    .contains("k6")
            }.toList()

    /** SIGKILL: no shutdown hook runs, as when a node dies. */
    fun kill() {
        process.destroyForcibly()
        process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)
    }

    /** SIGTERM, then SIGKILL if it lingers. */
    fun stop() {
        process.destroy()
        if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) kill()
    }

    /** SIGTERM, as the kubelet sends it: how long the process took to exit (SIGKILL after [WAIT_SECONDS]). */
    fun terminate(): Duration {
        val started = System.nanoTime()
        stop()
        return Duration.ofNanos(System.nanoTime() - started)
    }

    /** `/readyz` answers 200: the informer caches have synced. */
    fun ready(): Boolean = status("/readyz") == OK

    /** The HTTP status [path] (`/healthz`, `/readyz`) answers now; null when nothing answers. */
    fun status(path: String): Int? = get(path, HttpResponse.BodyHandlers.discarding())?.statusCode()

    /** The operator's `/metrics` page now; empty when nothing answers. */
    fun metrics(): String = get("/metrics", HttpResponse.BodyHandlers.ofString())?.body().orEmpty()

    /** [path] on the operator's HTTP port, within 2 s; null when nothing answers. */
    private fun <T> get(path: String, body: HttpResponse.BodyHandler<T>): HttpResponse<T>? =
        runCatching {
            val request =
                HttpRequest
                    .newBuilder(URI("http://127.0.0.1:$port$path"))
                    .timeout(Duration.ofSeconds(2))
                    .build()
            http.send(request, body)
        }.getOrNull()

    private companion object {
        const val WAIT_SECONDS = 15L
        const val OK = 200
        val http: HttpClient = HttpClient.newHttpClient()
    }
}
