package dev.danki.cli

/**
 * A failure the user can act on: what is wrong, and the next step. Thrown anywhere in a command,
 * printed once by [DankiCommand], and turned into [exitCode].
 */
class CliFailure(
    val exitCode: ExitCode,
    val problem: String,
    val nextStep: String,
    cause: Throwable? = null,
) : RuntimeException(problem, cause) {
    /** Two lines for stderr: the problem, then what to do about it. */
    fun render(): String = "error: $problem\n  next: $nextStep"
}
