package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Container
import java.io.RandomAccessFile
import java.nio.file.Files
import java.nio.file.Path

/**
 * A container's termination message, as the kubelet reads it: the last 4 KiB of the file the
 * container wrote at its `terminationMessagePath`; with `FallbackToLogsOnError`, when that file is
 * empty and the exit code is not 0, the last 80 lines (at most 2 KiB) of this run's log instead.
 */
class TerminationMessage(
    /** The host file bind-mounted at the container's `terminationMessagePath`. */
    val file: Path,
    private val container: Container,
) {
    /** Where the container sees [file]; the API server defaults it to `/dev/termination-log`. */
    val path: String get() = container.terminationMessagePath?.takeIf { it.isNotEmpty() } ?: DEFAULT_PATH

    /** An empty file for a new run, as the kubelet gives every container instance a fresh one. */
    fun reset() {
        Files.createDirectories(file.parent)
        Files.write(file, ByteArray(0))
    }

    /** The message of a run that ended with [exitCode], whose output is in [log] from byte [logStart]; null if none. */
    fun read(exitCode: Int, log: Path, logStart: Long): String? {
        val written = tail(file, 0, MAX_FILE_BYTES)
        if (written.isNotEmpty()) return written
        val fallback = container.terminationMessagePolicy == FALLBACK_TO_LOGS && exitCode != 0
        if (!fallback) return null
        val text = tail(log, logStart, MAX_LOG_BYTES)
        val lines =
            text
                .removeSuffix("\n")
                .split("\n")
                .takeLast(MAX_LOG_LINES)
                .joinToString("\n")
        return (if (text.endsWith("\n")) lines + "\n" else lines).ifEmpty { null }
    }

    /** The last [max] bytes of [path] after byte [from], as text; empty when there is no such file. */
    private fun tail(path: Path, from: Long, max: Int): String {
        if (!Files.isRegularFile(path)) return ""
        RandomAccessFile(path.toFile(), "r").use { input ->
            val start = maxOf(from, input.length() - max)
            if (start >= input.length()) return ""
            val bytes = ByteArray((input.length() - start).toInt())
            input.seek(start)
            input.readFully(bytes)
            return String(bytes, Charsets.UTF_8)
        }
    }

    companion object {
        const val DEFAULT_PATH = "/dev/termination-log"
        const val FALLBACK_TO_LOGS = "FallbackToLogsOnError"

        /** The kubelet's limits: 4 KiB of the file; 80 lines and 2 KiB of the log. */
        const val MAX_FILE_BYTES = 4096
        const val MAX_LOG_BYTES = 2048
        const val MAX_LOG_LINES = 80

        /** The host file for [container] of the pod whose folder is [podDir]. */
        fun of(podDir: Path, container: Container) =
            TerminationMessage(podDir.resolve("termination").resolve(container.name), container)
    }
}
