package dev.danki.cli

import java.io.File
import java.io.IOException
import java.net.HttpURLConnection
import java.net.URI
import java.time.Duration
import java.time.Instant
import java.util.concurrent.TimeUnit

/**
 * The service `danki train --export` trains: COMMAND as a child process whose JVM records an AOT cache
 * to a file as it exits. Its output goes to [log], read back only to say why it failed.
 */
class TrainedApp private constructor(
    private val process: Process,
    val log: File,
) {
    /** How waiting for the first answer ended. */
    enum class Start { ANSWERED, EXITED, TIMED_OUT }

    val exitCode: Int get() = process.exitValue()

    /** Polls [base] until it answers below 500, the process exits, or [timeout] passes. */
    fun awaitAnswer(base: URI, timeout: Duration): Start {
        val deadline = Instant.now() + timeout
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive) return Start.EXITED
            if (answers(base)) return Start.ANSWERED
            Thread.sleep(POLL_MILLIS)
        }
        return Start.TIMED_OUT
    }

    /**
     * SIGTERM (Process.destroy), then waits up to [timeout]: the JVM writes the cache on its way out,
     * from a second JVM it starts for that, which takes a while. False when it was still running (then killed).
     */
    fun stop(timeout: Duration): Boolean {
        process.destroy()
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) return true
        kill()
        return false
    }

    /** Ends the process and anything it started, now; for Ctrl-C and failures, never for a training. */
    fun kill() {
        process.descendants().forEach { it.destroyForcibly() }
        process.destroyForcibly()
        process.waitFor(KILL_WAIT_MILLIS, TimeUnit.MILLISECONDS)
    }

    fun lastLines(count: Int = TAIL_LINES): String =
        runCatching {
            log
                .readLines()
                .filter { it.isNotBlank() }
                .takeLast(count)
                .joinToString("\n") { "  | $it" }
        }.getOrDefault("")

    // not answering yet is what a starting JVM does: the failure is the answer, not something lost
    @Suppress("SwallowedException")
    private fun answers(base: URI): Boolean =
        try {
            val connection = base.toURL().openConnection() as HttpURLConnection
            connection.connectTimeout = PROBE_MILLIS
            connection.readTimeout = PROBE_MILLIS
            connection.instanceFollowRedirects = false
            // any answer but a server error: a 404 on the base URL is still a service that is up
            val code = connection.responseCode
            connection.disconnect()
            code < SERVER_ERROR
        } catch (e: IOException) {
            false
        }

    companion object {
        private const val POLL_MILLIS = 500L
        private const val PROBE_MILLIS = 1_000
        private const val KILL_WAIT_MILLIS = 5_000L
        private const val SERVER_ERROR = 500
        private const val TAIL_LINES = 15
        const val OPTIONS_VARIABLE = "JDK_JAVA_OPTIONS"

        /** Starts [command] recording to [cache] (see [javaOptions]); an IOException if it cannot start. */
        fun start(command: List<String>, cache: File, log: File): TrainedApp {
            val builder = ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log)
            val env = builder.environment()
            env[OPTIONS_VARIABLE] = javaOptions(env[OPTIONS_VARIABLE], cache)
            return TrainedApp(builder.start(), log)
        }

        /**
         * [existing] with the recording option appended, so options the build already sets stay. The
         * launcher splits the variable at white space and honours quotes, hence the quotes around a
         * path that has spaces.
         */
        fun javaOptions(existing: String?, cache: File): String {
            val option = "-XX:AOTCacheOutput=${cache.absolutePath}"
            val quoted = if (option.any { it.isWhitespace() }) "\"$option\"" else option
            return if (existing.isNullOrBlank()) quoted else "${existing.trim()} $quoted"
        }
    }
}
