package dev.danki.cli

import com.github.ajalt.clikt.core.CliktError
import com.github.ajalt.clikt.core.CoreCliktCommand
import com.github.ajalt.clikt.core.CoreNoOpCliktCommand
import com.github.ajalt.clikt.core.ProgramResult
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.core.context
import com.github.ajalt.clikt.core.parse
import com.github.ajalt.clikt.core.subcommands
import io.fabric8.kubernetes.client.KubernetesClient

/** `danki` (or `kubectl danki`): the root command; its subcommands do the work. */
class DankiCommand : CoreNoOpCliktCommand(name = System.getenv("DANKI_COMMAND_NAME") ?: "danki") {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Warm-up before the busy hour: prewarm a Deployment with a go/no-go, report its WarmupRuns, " +
            "bench a URL with danki's k6 warm-up, train a JDK AOT cache, or print danki's version."

    override val printHelpOnEmptyArgs = true

    init {
        // clikt-core reads no environment by default; bench's --k6 and --script fall back to DANKI_K6_*
        context { readEnvvar = { System.getenv(it) } }
    }

    override fun helpEpilog(context: com.github.ajalt.clikt.core.Context) =
        "Exit codes:\n\n```\n${ExitCode.help()}\n```\n\nDocs: docs/cli.md"

    companion object {
        /** Parses [args], runs the command, and returns the exit code; nothing here calls exitProcess. */
        fun run(
            args: Array<String>,
            console: Console = Console(),
            clients: () -> KubernetesClient = KubeClients::fromEnvironment,
        ): Int {
            val root =
                DankiCommand().subcommands(
                    PrewarmCommand(console, clients),
                    ReportCommand(console, clients),
                    BenchCommand(console),
                    TrainCommand(console, clients),
                    VersionCommand(console),
                )
            return try {
                root.parse(args.toList())
                ExitCode.OK.code
            } catch (e: ProgramResult) {
                e.statusCode
            } catch (e: UsageError) {
                print(root, e, console)
                ExitCode.USAGE.code
            } catch (e: CliktError) {
                // --help and the like: Clikt's own message and status
                print(root, e, console)
                e.statusCode
            }
        }

        private fun print(root: DankiCommand, e: CliktError, console: Console) {
            val text = root.getFormattedHelp(e) ?: return
            (if (e.printError) console.err else console.out).println(text)
        }
    }
}

/** A subcommand whose [CliFailure]s are printed once, with the next step, and become its exit code. */
abstract class DankiSubcommand(
    name: String,
    protected val console: Console,
) : CoreCliktCommand(name = name) {
    abstract fun execute(): ExitCode

    final override fun run() {
        val code =
            try {
                execute()
            } catch (e: CliFailure) {
                console.err.println(e.render())
                e.exitCode
            }
        if (code != ExitCode.OK) throw ProgramResult(code.code)
    }
}
