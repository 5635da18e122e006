package dev.danki.operator.bench

import java.io.File
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * The operator as it runs in its pod: `java -jar operator-all.jar` in a process of its own, with the
 * JVM's ergonomics of the image under the chart's 2 GiB limit (`-XX:MaxRAMPercentage=25`: a 512 MiB
 * heap), so that its memory is the operator's alone and not the test JVM's. What a benchmark reads of
 * it: resident memory, and the live heap after a full GC.
 */
class OperatorProcess(
    jar: File,
    env: Map<String, String>,
    log: File,
) : AutoCloseable {
    val httpPort = freePort()
    private val process: Process =
        ProcessBuilder(
            "java",
            // the JVM sizes itself from the container's memory: the chart's limit, not this machine's RAM
            // (its initial heap, 1/64 of that, is what a process touches first)
            "-XX:MaxRAM=${CONTAINER_LIMIT_MIB}m",
            "-XX:MaxRAMPercentage=25",
            "-XX:+ExitOnOutOfMemoryError",
            "-jar",
            jar.path,
        ).apply {
            environment().putAll(env + ("DANKI_HTTP_PORT" to httpPort.toString()))
            redirectErrorStream(true)
            redirectOutput(log)
        }.start()

    val pid: Long get() = process.pid()

    fun alive(): Boolean = process.isAlive

    /** The operator's `/readyz` answers 200: its informers have listed once. */
    fun ready(): Boolean =
        runCatching {
            val request = HttpRequest.newBuilder(URI("http://127.0.0.1:$httpPort/readyz")).timeout(TIMEOUT).build()
            http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == HTTP_OK
        }.getOrDefault(false)

    /** Resident set size now, from /proc: what the container's memory limit counts (with page cache aside). */
    fun rssMib(): Double {
        val line = File("/proc/$pid/status").readLines().first { it.startsWith("VmRSS:") }
        return line.split(Regex("\\s+"))[1].toDouble() / KIB_PER_MIB
    }

    /** The heap in use right after a full GC (`jcmd GC.run`, then `GC.heap_info`): the live set. */
    fun liveHeapMib(): Double {
        jcmd("GC.run")
        val info = jcmd("GC.heap_info")
        // "garbage-first heap   total 62464K, used 27108K [...]"
        val used = Regex("heap\\s+total \\d+K, used (\\d+)K").find(info) ?: error("no heap figure in: $info")
        return used.groupValues[1].toDouble() / KIB_PER_MIB
    }

    private fun jcmd(command: String): String {
        val jcmd = ProcessBuilder("jcmd", pid.toString(), command).redirectErrorStream(true).start()
        val out = jcmd.inputStream.bufferedReader().readText()
        check(jcmd.waitFor(JCMD_SECONDS, TimeUnit.SECONDS) && jcmd.exitValue() == 0) { "jcmd $command: $out" }
        return out
    }

    override fun close() {
        process.destroy()
        if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
    }

    companion object {
        /** The chart's memory limit (values.yaml `resources.limits.memory`). */
        const val CONTAINER_LIMIT_MIB = 2048

        /** The image's -XX:MaxRAMPercentage=25 of it. */
        const val HEAP_MIB = CONTAINER_LIMIT_MIB / 4
        private const val HTTP_OK = 200
        private const val KIB_PER_MIB = 1024.0
        private const val JCMD_SECONDS = 60L
        private const val STOP_SECONDS = 30L
        private val TIMEOUT = Duration.ofSeconds(2)
        private val http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()

        fun freePort(): Int = ServerSocket(0).use { it.localPort }
    }
}
