package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.choice
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * `danki report deployment/<name>`: the cold vs warm table of the current pods' WarmupRuns, then the
 * Deployment's WarmupHistory, the results that outlived their pods.
 */
class ReportCommand(
    console: Console,
    private val clients: () -> KubernetesClient,
) : DankiSubcommand("report", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Print the WarmupRuns of a Deployment's current pods: cold and warm P50/P95 (ms), duration, stop " +
            "reason, and the Deployment's median line; then its warm-up history (the last results, newest " +
            "first) with the slowest and median duration."

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
            val history = reader.history(ref)
            val total = ResultTable.total("deployment/${ref.name}", results)
            val format = ResultTable.formatOf(output)
            if (format == ResultTable.Format.JSON) {
                console.out.print(ResultTable.json(results, total, "history" to HistoryTable.json(history)))
            } else {
                console.out.print(ResultTable.render(results, total, format))
                if (history is HistoryLookup.Found) console.out.print(HistoryTable.render(history.history, format))
            }
            if (results.isEmpty() && format == ResultTable.Format.TABLE) {
                console.err.println("no WarmupRuns for $ref: its pods were not warmed by danki (is it opted in?)")
            }
            HistoryTable.note(history, ref)?.let { note ->
                // markdown goes into a ticket, whose reader should see why the history is missing
                if (format == ResultTable.Format.MARKDOWN) console.out.print("\n$note\n") else console.err.println(note)
            }
            return ExitCode.OK
        }
    }
}
