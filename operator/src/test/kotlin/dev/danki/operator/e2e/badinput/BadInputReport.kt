package dev.danki.operator.e2e.badinput

import java.io.File

/** docs/bad-input.md, written from what the suite saw: the document is the evidence. */
object BadInputReport {
    fun write(file: File, rows: List<Triple<BadInputCase, Observation, List<String>>>, header: String) {
        val passed = rows.count { it.third.isEmpty() }
        val text =
            buildString {
                appendLine("# Bad input: what danki does with each mistake")
                appendLine()
                appendLine("<!-- Written by BadInputE2E (make e2e-operator) from its own run; do not edit by hand. -->")
                appendLine()
                appendLine(header)
                appendLine()
                appendLine("$passed of ${rows.size} cases behaved as expected.")
                appendLine()
                appendLine(
                    "Columns: the mistake; the Event danki wrote (reason: message, shortened); the WarmupRun's " +
                        "reason; the pod's gate reason and whether it ended Ready; how long it stayed out of " +
                        "its Service after its containers were ready (\"held\": kept out by policy `closed`, " +
                        "\"not gated\": danki did not hold it), and when danki decided (its gate condition; " +
                        "negative: before the containers were ready); and how the row compares with its expectation.",
                )
                appendLine()
                appendLine(
                    "| case | mistake | Event | run | gate | Ready | gated after ContainersReady | " +
                        "decided after | check |",
                )
                appendLine("|---|---|---|---|---|---|---|---|---|")
                rows.forEach { (case, seen, misses) -> appendLine(row(case, seen, misses)) }
            }
        file.writeText(text)
    }

    private fun row(case: BadInputCase, seen: Observation, misses: List<String>): String {
        val event =
            seen.events
                .firstOrNull { it.first == case.expect.eventReason }
                ?.let { (reason, message) -> "$reason: ${short(message)}" }
                ?: seen.events.firstOrNull()?.let { "${it.first}: ${short(it.second)}" }
                ?: "—"
        val gated =
            when {
                seen.gateReason == null -> "not gated"
                seen.gatedSeconds == null -> "held"
                else -> "%.1f s".format(seen.gatedSeconds)
            }
        val decided = seen.decidedSeconds?.let { "%.1f s".format(it) } ?: "—"
        val check = if (misses.isEmpty()) "as expected" else "**differs**: ${cell(misses.joinToString("; "))}"
        return "| ${case.name} | ${cell(case.mistake)} | ${cell(event)} | ${seen.runReason ?: "—"} | " +
            "${seen.gateReason ?: "—"} | ${if (seen.ready) "yes" else "no"} | $gated | $decided | $check |"
    }

    private fun short(message: String): String {
        val cut = message.length > MESSAGE_LENGTH
        return message.take(MESSAGE_LENGTH) + if (cut) "…" else ""
    }

    private fun cell(text: String) =
        BadInputCases
            .escaped(text)
            .replace("|", "\\|")
            .replace("<", "&lt;")

    private const val MESSAGE_LENGTH = 160
}
