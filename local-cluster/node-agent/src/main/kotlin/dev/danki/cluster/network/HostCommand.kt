package dev.danki.cluster.network

import java.io.IOException
import java.util.concurrent.TimeUnit

/** A host command (`ip ...`) failed; the message carries its output. */
class HostCommandException(
    message: String,
) : IOException(message)

/** Runs short host commands such as `ip netns add`, with a time limit. */
object HostCommand {
    private const val TIMEOUT_SECONDS = 20L

    /** Runs [argv]; returns its standard output, or throws [HostCommandException] on a non-zero exit or time-out. */
    fun run(vararg argv: String): String {
        val process = ProcessBuilder(*argv).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            throw HostCommandException("${argv.joinToString(" ")} timed out")
        }
        if (process.exitValue() !=
            0
        ) {
            throw HostCommandException("${argv.joinToString(" ")} failed (${process.exitValue()}): ${output.trim()}")
        }
        return output
    }

    /** Like [run], but a failure only returns null (cleanup of things that may already be gone). */
    fun tryRun(vararg argv: String): String? =
        try {
            run(*argv)
        } catch (
            @Suppress("SwallowedException") e: HostCommandException,
        ) {
            null // the thing to remove is already gone
        }
}
