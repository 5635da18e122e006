package dev.danki.cluster.network

import java.io.File
import java.io.IOException
import java.util.concurrent.TimeUnit

/** A host command (`ip ...`) failed; the message carries its output. */
class HostCommandException(
    message: String,
    cause: Throwable? = null,
) : IOException(message, cause)

/** Runs short host commands such as `ip netns add`, with a time limit. */
object HostCommand {
    private const val TIMEOUT_SECONDS = 20L

    /** Runs [argv]; returns its standard output, or throws [HostCommandException] on a non-zero exit or time-out. */
    fun run(vararg argv: String): String = runWithInput(null, *argv)

    /**
     * Like [run], with [input] (if any) written to the command's standard input. The output goes to
     * a file, not a pipe: reading a pipe to its end would wait as long as a hung command (or a child
     * it left holding the pipe) lives, and the time limit would never be reached.
     */
    fun runWithInput(input: String?, vararg argv: String): String = runWithin(TIMEOUT_SECONDS, input, *argv)

    /** [runWithInput] with a time limit of [seconds]. */
    internal fun runWithin(seconds: Long, input: String?, vararg argv: String): String {
        val outputFile = File.createTempFile("host-command", ".out")
        try {
            val process = start(argv, outputFile)
            process.outputStream.use { stdin -> if (input != null) stdin.write(input.toByteArray()) }
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly()
                throw HostCommandException("${argv.joinToString(" ")} timed out after $seconds s")
            }
            val output = outputFile.readText()
            if (process.exitValue() != 0) {
                val command = argv.joinToString(" ")
                throw HostCommandException("$command failed (${process.exitValue()}): ${output.trim()}")
            }
            return output
        } finally {
            outputFile.delete()
        }
    }

    private fun start(argv: Array<out String>, output: File): Process =
        try {
            ProcessBuilder(argv.toList()).redirectErrorStream(true).redirectOutput(output).start()
        } catch (e: IOException) {
            throw HostCommandException("cannot run ${argv.first()}: ${e.message}", e)
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
