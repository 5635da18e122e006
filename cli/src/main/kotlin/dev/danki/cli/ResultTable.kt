package dev.danki.cli

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.SerializationFeature
import java.util.Locale

/**
 * The cold vs warm table, per pod and for the whole Deployment, in the three forms `-o` offers.
 * Latencies are milliseconds; a dash is a figure the run does not have (yet).
 */
object ResultTable {
    enum class Format { TABLE, JSON, MARKDOWN }

    private val HEADER =
        listOf(
            "POD",
            "PHASE",
            "WAITED",
            "BOOST",
            "COLD-P50",
            "COLD-P95",
            "WARM-P50",
            "WARM-P95",
            "DURATION",
            "STOP",
            "REASON",
        )

    /** What only a cluster has: the wait for a warm-up slot and the CPU boost while gated. */
    private val clusterColumns = setOf(HEADER.indexOf("WAITED"), HEADER.indexOf("BOOST"))
    private val mapper = ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)

    /** The Deployment's line: the median of each latency over the pods that have it; the longest wait and warm-up. */
    fun total(label: String, results: List<PodResult>): PodResult {
        val warmed = results.count { it.warmed }
        return PodResult(
            pod = label,
            phase = "$warmed/${results.size} warmed",
            coldP50 = median(results.mapNotNull { it.coldP50 }),
            coldP95 = median(results.mapNotNull { it.coldP95 }),
            warmP50 = median(results.mapNotNull { it.warmP50 }),
            warmP95 = median(results.mapNotNull { it.warmP95 }),
            duration = results.mapNotNull { it.duration }.maxByOrNull { seconds(it) },
            queueWait = results.mapNotNull { it.queueWait }.maxByOrNull { seconds(it) },
        )
    }

    /**
     * [waits]: show the WAITED and BOOST columns (pods in a cluster wait for a warm-up slot and may be
     * boosted; `danki bench` does neither).
     */
    fun render(results: List<PodResult>, total: PodResult?, format: Format, waits: Boolean = true): String =
        when (format) {
            Format.TABLE -> aligned(rows(results, total, waits))
            Format.MARKDOWN -> markdown(rows(results, total, waits))
            Format.JSON -> json(results, total)
        }

    /** The JSON form: one object with `pods` and `deployment`, then what the caller adds (report: `history`). */
    fun json(results: List<PodResult>, total: PodResult?, vararg more: Pair<String, Any?>): String =
        mapper.writeValueAsString(mapOf("pods" to results, "deployment" to total) + more) + "\n"

    private fun rows(results: List<PodResult>, total: PodResult?, waits: Boolean): List<List<String>> =
        (listOf(HEADER) + (results + listOfNotNull(total)).map(::cells))
            .map { row -> if (waits) row else row.filterIndexed { col, _ -> col !in clusterColumns } }

    private fun cells(r: PodResult) =
        listOf(
            r.pod,
            r.phase,
            r.queueWait ?: "-",
            r.boost ?: "-",
            ms(r.coldP50),
            ms(r.coldP95),
            ms(r.warmP50),
            ms(r.warmP95),
            r.duration ?: "-",
            r.stopReason ?: "-",
            oneLine(r.reason),
        )

    /** [rows] (the header first) in padded columns; the last column is not padded. */
    fun aligned(rows: List<List<String>>): String {
        val widths = rows.first().indices.map { col -> rows.maxOf { it[col].length } }
        return rows.joinToString("") { row ->
            row
                .mapIndexed { col, cell -> if (col == row.lastIndex) cell else cell.padEnd(widths[col]) }
                .joinToString("  ")
                .trimEnd() + "\n"
        }
    }

    /** [rows] (the header first) as a markdown table. */
    fun markdown(rows: List<List<String>>): String {
        val lines = rows.map { row -> "| " + row.joinToString(" | ") { it.replace("|", "\\|") } + " |" }
        val rule = "|" + rows.first().joinToString("|") { "---" } + "|"
        return (listOf(lines.first(), rule) + lines.drop(1)).joinToString("\n") + "\n"
    }

    fun ms(value: Double?): String = value?.let { String.format(Locale.ROOT, "%.1f", it) } ?: "-"

    /** Tenant text (a k6 message) on one line, bounded, so a table stays a table. */
    fun oneLine(text: String?): String =
        text
            ?.replace(Regex("\\s+"), " ")
            ?.take(MAX_REASON)
            ?: ""

    fun median(values: List<Double>): Double? {
        if (values.isEmpty()) return null
        val sorted = values.sorted()
        val mid = sorted.size / 2
        return if (sorted.size % 2 == 1) sorted[mid] else (sorted[mid - 1] + sorted[mid]) / 2
    }

    /** Seconds of a duration as the operator writes it (`850ms`, `12.3s`, `4m05s`), for ordering only. */
    fun seconds(text: String): Double =
        dev.danki.operator.warmup.DurationFormat
            .parse(text)
            ?.toMillis()
            ?.div(MILLIS) ?: 0.0

    private const val MAX_REASON = 160
    private const val MILLIS = 1_000.0

    fun formatOf(text: String): Format = Format.valueOf(text.uppercase(Locale.ROOT))
}
