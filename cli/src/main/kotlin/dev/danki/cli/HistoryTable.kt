package dev.danki.cli

import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupRun

/**
 * A Deployment's kept warm-up results below `danki report`'s table of the current pods, newest first.
 * They outlive the pods, so this is where a runbook finds the last real scale-up and its durations.
 * Latencies are milliseconds; a dash is a figure the entry lacks.
 */
object HistoryTable {
    private val HEADER = listOf("ENDED", "POD", "RESULT", "COLD-P95", "WARM-P95", "REQUESTS", "STOP", "DURATION")

    /** The table (or, for [ResultTable.Format.MARKDOWN], markdown) section: heading, rows, durations. */
    fun render(history: WarmupHistory, format: ResultTable.Format): String {
        val entries = history.status?.entries.orEmpty()
        val recorded = history.status?.recorded ?: entries.size.toLong()
        val heading = "history (last ${entries.size} of $recorded results, newest first)"
        val rows = listOf(HEADER) + entries.map(::cells)
        val durations = durations(WarmupDurations.of(entries))
        return if (format == ResultTable.Format.MARKDOWN) {
            "\n### $heading\n\n${ResultTable.markdown(rows)}\n$durations\n"
        } else {
            "\n$heading\n${ResultTable.aligned(rows)}$durations\n"
        }
    }

    /** The `history` of `report -o json`: the entries as the WarmupHistory keeps them, and their durations. */
    fun json(lookup: HistoryLookup): Map<String, Any?>? {
        val history = (lookup as? HistoryLookup.Found)?.history ?: return null
        val entries = history.status?.entries.orEmpty()
        return mapOf(
            "deployment" to (history.spec?.deployment ?: history.metadata?.name),
            "retention" to history.status?.retention,
            "recorded" to history.status?.recorded,
            "entries" to entries,
            "durations" to WarmupDurations.of(entries),
        )
    }

    /** Why no history is shown, in one line; null when there is one to show. */
    fun note(lookup: HistoryLookup, ref: DeploymentRef): String? =
        when (lookup) {
            is HistoryLookup.Found -> {
                null
            }

            HistoryLookup.Denied -> {
                "no warm-up history shown: RBAC denies get warmuphistories.danki.dev in namespace " +
                    "${ref.namespace} (ask for it to see past scale-ups; docs/cli.md lists what report needs)"
            }

            is HistoryLookup.Absent -> {
                absent(lookup.served, "deployment/${ref.name}")
            }
        }

    private fun absent(served: Boolean?, deployment: String) =
        when (served) {
            true -> {
                "no warm-up history yet for $deployment: no warm-up of it has ended since danki began keeping " +
                    "them (a chart with history.retention 0 keeps none)"
            }

            false -> {
                "no warm-up history for $deployment: the WarmupHistory CRD (warmuphistories.danki.dev) is not " +
                    "installed, this cluster's danki chart is older than WarmupHistory (docs/install.md, Upgrading)"
            }

            null -> {
                "no warm-up history for $deployment (none recorded yet, or a danki chart older than WarmupHistory)"
            }
        }

    private fun durations(d: WarmupDurations): String {
        val counted = if (d.succeeded == 0) "no succeeded warm-up kept" else "over ${d.succeeded} succeeded"
        return "slowest duration ${d.slowest ?: "-"}, median duration ${d.median ?: "-"} ($counted)"
    }

    private fun cells(e: WarmupHistoryEntry) =
        listOf(
            e.completionTime ?: "-",
            e.pod ?: e.run ?: "-",
            ResultTable.oneLine(result(e)),
            ResultTable.ms(e.cold?.p95),
            ResultTable.ms(e.warm?.p95),
            e.requests?.toString() ?: "-",
            e.stopReason ?: "-",
            e.duration ?: "-",
        )

    /** The phase, or for a failure the reason it failed, which says more. */
    private fun result(e: WarmupHistoryEntry): String =
        if (e.phase == WarmupRun.PHASE_FAILED) e.reason ?: e.phase ?: "-" else e.phase ?: "-"
}
