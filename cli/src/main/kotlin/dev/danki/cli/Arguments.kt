package dev.danki.cli

import com.github.ajalt.clikt.core.BadParameterValue
import dev.danki.operator.warmup.DurationFormat
import java.time.Duration

/** Argument conversions shared by the subcommands, failing as Clikt usage errors. */
object Arguments {
    /** `150ms`, `15m`, `1m30s`, as the operator's annotations take them. */
    fun duration(text: String): Duration =
        DurationFormat.parse(text)?.takeIf { !it.isZero }
            ?: throw BadParameterValue("'${text.take(MAX_ECHO)}' is not a duration: expected e.g. 150ms, 90s, 15m")

    fun deployment(text: String, namespace: String): DeploymentRef =
        DeploymentRef.parse(text, namespace).getOrElse {
            throw CliFailure(ExitCode.USAGE, it.message ?: "bad Deployment", "name it as deployment/<name>")
        }

    private const val MAX_ECHO = 40
}
