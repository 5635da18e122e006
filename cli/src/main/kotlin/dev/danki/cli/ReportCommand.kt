package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.choice
import io.fabric8.kubernetes.client.KubernetesClient

/** `danki report deployment/<name>`: the cold vs warm table of the current pods' WarmupRuns. */
class ReportCommand(
    console: Console,
    private val clients: () -> KubernetesClient,
) : DankiSubcommand("report", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Print the WarmupRuns of a Deployment's current pods: cold and warm P50/P95 (ms), duration, stop " +
            "reason, and the Deployment's median line."

    private val target by argument("DEPLOYMENT", help = "deployment/<name>")
    private val namespace by option("-n", "--namespace", help = "namespace (default: the kubeconfig context's)")
    private val output by option("-o", "--output", help = "table, json or markdown")
        .choice("table", "json", "markdown")
        .default("table")

    override fun execute(): ExitCode {
        clients().use { client ->
            val ref = Arguments.deployment(target, namespace ?: client.namespace ?: "default")
            val reader = ClusterReader(client)
            reader.deployment(ref)
            val results =
                reader
                    .runs(ref)
                    .sortedWith(compareBy({ it.spec?.podName }, { it.spec?.restartCount ?: 0 }))
                    .map { PodResult.of(it) }
            val format = ResultTable.formatOf(output)
            console.out.print(ResultTable.render(results, ResultTable.total("deployment/${ref.name}", results), format))
            if (results.isEmpty() && format == ResultTable.Format.TABLE) {
                console.err.println("no WarmupRuns for $ref: its pods were not warmed by danki (is it opted in?)")
            }
            return ExitCode.OK
        }
    }
}
