package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper

/** Parses the summary JSON that `warmup.js` writes; strict, so a format drift fails loudly. */
object K6SummaryParser {
    private val json = ObjectMapper()

    fun parse(text: String): K6Summary {
        val root =
            runCatching { json.readTree(text) }.getOrElse {
                invalid("k6 summary is not JSON: ${it.message}")
            }
        if (root == null || !root.isObject) invalid("k6 summary is not a JSON object")
        val version = root.path("version").asInt(-1)
        if (version != FORMAT_VERSION) invalid("k6 summary version $version, expected $FORMAT_VERSION")
        val reasonText = root.path("stopReason").asText("")
        val reason =
            StopReason.entries.firstOrNull { it.name == reasonText }
                ?: invalid("k6 summary has stopReason '$reasonText'")
        val phases = root.path("phases")
        return K6Summary(
            stopReason = reason,
            abortMessage = root.path("abortMessage").takeIf { it.isTextual }?.asText(),
            cold = phase(phases, "cold"),
            warmup = phase(phases, "warmup"),
            warm = phase(phases, "warm"),
            firstRequestAtMillis = root.path("firstRequestAtMs").asLong(0),
            durationSeconds = root.path("durationSeconds").asDouble(0.0),
            evidence = evidence(root.path("evidence")),
            notes = notes(root.path("notes")),
        )
    }

    /** A flow's notes, as strings: at most [MAX_NOTES], each cut to [MAX_NOTE_CHARS], whatever k6 wrote. */
    private fun notes(node: JsonNode): List<String> {
        if (node.isMissingNode || node.isNull) return emptyList()
        if (!node.isArray) invalid("k6 summary has notes that are not a list")
        return node
            .take(MAX_NOTES)
            .map { note -> note.asText("").take(MAX_NOTE_CHARS) }
    }

    private fun evidence(node: JsonNode): WarmupEvidence? {
        if (!node.isObject) invalid("k6 summary has no evidence")
        // a run aborted in its cold pass has no warm-up to explain
        if (node.path("requests").asLong(0) == 0L) return null
        val jit = node.path("jit")
        return WarmupEvidence(
            rule = node.path("rule").asText("latency"),
            concurrency = node.path("concurrency").asInt(0),
            requests = node.path("requests").asLong(0),
            blocks = node.path("blocks").asInt(0),
            blockSize = node.path("blockSize").asInt(0),
            lastBlockP95 = number(node, "lastBlockP95"),
            earlierBestP95 = number(node, "earlierBestP95"),
            seconds = number(node, "seconds"),
            achievedRate = number(node, "achievedRate"),
            jit =
                jit.takeIf { it.isObject }?.let {
                    JitEvidence(
                        url = it.path("url").asText(""),
                        metric = it.path("metric").takeIf { m -> m.isTextual }?.asText(),
                        compileMs = number(it, "compileMs"),
                        lastBlockMs = number(it, "lastBlockMs"),
                        error = it.path("error").takeIf { e -> e.isTextual }?.asText(),
                    )
                },
        )
    }

    private fun number(node: JsonNode, field: String): Double? = node.path(field).takeIf { it.isNumber }?.asDouble()

    private fun phase(phases: JsonNode, name: String): PhaseResult {
        val node = phases.path(name)
        if (!node.isObject) invalid("k6 summary has no phase '$name'")
        val requests = node.path("requests").asLong(-1)
        if (requests < 0) invalid("k6 summary phase '$name' has no request count")
        val values = PERCENTILES.associateWith { key -> node.path(key).takeIf { it.isNumber }?.asDouble() }
        val latency =
            if (values.values.any { it == null }) {
                null
            } else {
                Percentiles(values["p25"]!!, values["p50"]!!, values["p75"]!!, values["p90"]!!, values["p95"]!!)
            }
        val example = node.path("failureExample").takeIf { it.isTextual }?.asText()
        return PhaseResult(requests, node.path("failures").asLong(0), latency, example)
    }

    private fun invalid(message: String): Nothing = throw K6SummaryException(message)

    const val FORMAT_VERSION = 2

    /** As lib/termination-message.js keeps them: 10 notes of 200 characters. */
    const val MAX_NOTES = 10
    const val MAX_NOTE_CHARS = 200
    private val PERCENTILES = listOf("p25", "p50", "p75", "p90", "p95")
}

/** Thrown when the summary file is missing fields or is not the format `warmup.js` writes. */
class K6SummaryException(
    message: String,
) : RuntimeException(message)
