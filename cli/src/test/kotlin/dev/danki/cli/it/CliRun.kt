package dev.danki.cli.it

import dev.danki.cli.Console
import dev.danki.cli.DankiCommand
import io.fabric8.kubernetes.client.KubernetesClient
import java.io.ByteArrayOutputStream
import java.io.PrintStream

/** What one CLI invocation printed and returned. */
data class CliRun(
    val code: Int,
    val out: String,
    val err: String,
) {
    override fun toString() = "exit $code\n--- stdout\n$out--- stderr\n$err"

    companion object {
        /** Runs `danki args...` in this JVM against [client] (closed by the command). */
        fun of(vararg args: String, client: () -> KubernetesClient = { CliApiServer.client() }): CliRun {
            val out = ByteArrayOutputStream()
            val err = ByteArrayOutputStream()
            val code = DankiCommand.run(arrayOf(*args), Console(PrintStream(out, true), PrintStream(err, true)), client)
            return CliRun(code, out.toString(), err.toString())
        }
    }
}
