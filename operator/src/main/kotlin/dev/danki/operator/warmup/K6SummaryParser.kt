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
            abortMessage = text(root, "abortMessage"),
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
            rule = node.path("rule").asText("throughput"),
            concurrency = node.path("concurrency").asInt(0),
            requests = node.path("requests").asLong(0),
            blocks = node.path("blocks").asInt(0),
            blockSize = node.path("blockSize").asInt(0),
            window = node.path("window").asInt(0),
            tolerance = number(node, "tolerance"),
            lastBlockP95 = number(node, "lastBlockP95"),
            lastBlockRate = number(node, "lastBlockRate"),
            recentRate = number(node, "recentRate"),
            earlierRate = number(node, "earlierRate"),
            recentCpuPerRequestMs = number(node, "recentCpuPerRequestMs"),
            earlierCpuPerRequestMs = number(node, "earlierCpuPerRequestMs"),
            seconds = number(node, "seconds"),
            achievedRate = number(node, "achievedRate"),
            drainSeconds = number(node, "drainSeconds"),
            jit =
                jit.takeIf { it.isObject }?.let {
                    JitEvidence(
                        url = it.path("url").asText(""),
                        metric = text(it, "metric"),
                        cpuMetric = text(it, "cpuMetric"),
                        compileMs = number(it, "compileMs"),
                        lastShare = number(it, "lastShare"),
                        error = text(it, "error"),
                    )
                },
        )
    }

    private fun number(node: JsonNode, field: String): Double? = node.path(field).takeIf { it.isNumber }?.asDouble()

    private fun text(node: JsonNode, field: String): String? = node.path(field).takeIf { it.isTextual }?.asText()

    private fun phase(phases: JsonNode, name: String): PhaseResult {
        val node = phases.path(name)
        if (!node.isObject) invalid("k6 summary has no phase '$name'")
        val requests = node.path("requests").asLong(-1)
        if (requests < 0) invalid("k6 summary phase '$name' has no request count")
        val values = PERCENTILES.associateWith { number(node, it) }
        val latency =
            if (null in values.values) {
                null
            } else {
                Percentiles(values["p25"]!!, values["p50"]!!, values["p75"]!!, values["p90"]!!, values["p95"]!!)
            }
        return PhaseResult(
            requests,
            node.path("failures").asLong(0),
            latency,
            text(node, "failureExample"),
            protocol(node.path("protocol")),
        )
    }

    /** How a pass was measured; null for the warm-up, and for a phase that sent nothing. */
    private fun protocol(node: JsonNode): PassProtocol? {
        if (!node.isObject) return null
        val source = node.path("source").asText("")
        if (source !in PassProtocol.SOURCES) invalid("k6 summary has a pass protocol of source '$source'")
        return PassProtocol(
            source = source,
            requests = node.path("requests").asLong(0),
            rate = number(node, "rate"),
            concurrency = node.path("concurrency").takeIf { it.isInt }?.asInt(),
        )
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

/** The JSON that `k6-scripts/warmup.js` writes to SUMMARY_PATH, parsed. */
data class K6Summary(
    val stopReason: StopReason,
    /** Why the script gave up early, when [stopReason] is `Aborted` or `OutOfTime`. */
    val abortMessage: String?,
    val cold: PhaseResult,
    val warmup: PhaseResult,
    val warm: PhaseResult,
    /** Wall-clock time of the first request, epoch ms; 0 when none was sent. */
    val firstRequestAtMillis: Long,
    val durationSeconds: Double,
    /** Why the warm-up stopped where it did; null when the run never reached its warm-up. */
    val evidence: WarmupEvidence? = null,
    /** What a custom flow's notes() reported (runner.js); tenant text, bounded by the parser. */
    val notes: List<String> = emptyList(),
) {
    val totalRequests get() = cold.requests + warmup.requests + warm.requests
    val totalFailures get() = cold.failures + warmup.failures + warm.failures

    /** The first failed request of the earliest phase that had one. */
    val failureExample get() = listOf(cold, warmup, warm).firstNotNullOfOrNull { it.failureExample }

    companion object {
        /**
         * One warm-up sent as k6 runs of a phase or two each ([runs], in order, all completed): each phase as
         * the run that sent it measured it; the stop reason and evidence of the run with the warm-up; the
         * first run's first request.
         */
        fun joined(runs: List<K6Summary>): K6Summary {
            val warmedBy = runs.lastOrNull { it.stopReason != StopReason.Measured } ?: runs.last()

            fun sent(phase: (K6Summary) -> PhaseResult) =
                runs.map(phase).lastOrNull { it.requests > 0 } ?: phase(warmedBy)
            return K6Summary(
                stopReason = warmedBy.stopReason,
                abortMessage = warmedBy.abortMessage,
                cold = sent { it.cold },
                warmup = sent { it.warmup },
                warm = sent { it.warm },
                firstRequestAtMillis = runs.first().firstRequestAtMillis,
                durationSeconds = runs.sumOf { it.durationSeconds },
                evidence = warmedBy.evidence,
                notes = runs.flatMap { it.notes }.distinct(),
            )
        }
    }
}

/** What one phase (cold, warm-up, warm) of a k6 run measured. */
data class PhaseResult(
    val requests: Long,
    val failures: Long,
    val latency: Percentiles?,
    /** The first failed request of the phase, e.g. `404 from GET /exam/1`; null when none failed. */
    val failureExample: String? = null,
    /** How the cold or warm pass was measured. */
    val protocol: PassProtocol? = null,
)

/**
 * How a cold or warm pass was measured: an `open` pass of [requests] sent at [rate] per second whatever the
 * answers took, as users arrive; or, for the cold figures, the `warmup`'s first [requests] answers, with
 * [concurrency] in flight, which costs the pod's critical path no time of its own, and then for the warm
 * ones a `closed` pass of [requests] with as many in flight, so both figures are taken the same way.
 */
data class PassProtocol(
    val source: String,
    val requests: Long,
    val rate: Double? = null,
    val concurrency: Int? = null,
) {
    companion object {
        const val OPEN = "open"
        const val WARMUP = "warmup"
        const val CLOSED = "closed"
        val SOURCES = setOf(OPEN, WARMUP, CLOSED)
    }
}

/** Latency percentiles of one phase, in milliseconds. */
data class Percentiles(
    val p25: Double,
    val p50: Double,
    val p75: Double,
    val p90: Double,
    val p95: Double,
) {
    fun asMap() = linkedMapOf("p25" to p25, "p50" to p50, "p75" to p75, "p90" to p90, "p95" to p95)
}

/**
 * Why the warm-up phase stopped, as written by `warmup.js`. `Converged`, `JitSettled`, `TargetReached`,
 * `MaxRequests` and `Timeout` end a run that goes on to its warm pass; `Aborted` (too many failed
 * requests) and `OutOfTime` (the run's own time budget cut it before the warm pass ended) end a failed one.
 */
enum class StopReason {
    Converged,
    TargetReached,
    MaxRequests,
    Timeout,
    Aborted,
    OutOfTime,
    JitSettled,

    /** A run of measurement passes alone, without the warm-up (see [K6Summary.joined]). */
    Measured,
}

/**
 * Why a warm-up stopped where it did, as `warmup.js` measured it: what a user reads to judge whether
 * the stop rule chose well.
 */
data class WarmupEvidence(
    /**
     * `throughput` (the pod stopped getting faster), `jit` (that, and its compiler went quiet) or `cpu` (its CPU
     * per request stopped falling, and its compiler went quiet).
     */
    val rule: String,
    /** Warm-up requests in flight at once. */
    val concurrency: Int,
    /** Requests the stop rules judged: the closed loop's, the cold figures' first answers included. */
    val requests: Long,
    /** Blocks of answers the rules judged, how many answers make one, and how many make a window. */
    val blocks: Int,
    val blockSize: Int,
    val window: Int = 0,
    /** Gain of the last window over the one before it that still counted as warming. */
    val tolerance: Double? = null,
    /** P95 (ms) of the last block. */
    val lastBlockP95: Double?,
    /** Answers/s of the last block, and the median of the last window and of the one before it. */
    val lastBlockRate: Double? = null,
    val recentRate: Double? = null,
    val earlierRate: Double? = null,
    /** CPU ms per request, the median of the last window and of the one before it (the `cpu` rule). */
    val recentCpuPerRequestMs: Double? = null,
    val earlierCpuPerRequestMs: Double? = null,
    /** Wall time of the closed loop, and the requests/s the pod took. */
    val seconds: Double?,
    val achievedRate: Double?,
    /** Seconds of the drain after the loop, before the warm pass. */
    val drainSeconds: Double? = null,
    /** The JIT scrapes, when the plan named a metrics page. */
    val jit: JitEvidence?,
)

/** What the pod's JIT counter said during the warm-up. */
data class JitEvidence(
    val url: String,
    /** The counter found, e.g. `jvm_compilation_time_ms_total`; null when none was. */
    val metric: String?,
    /** The process CPU counter read beside it, e.g. `process_cpu_time_ns_total`; null when the page had none. */
    val cpuMetric: String? = null,
    /** JIT compile time spent during the warm-up, ms: elapsed time summed over the compiler threads. */
    val compileMs: Double?,
    /** Compile time between the last two scrapes over the wall time between them. */
    val lastShare: Double?,
    /** Why the JIT rule could not be used (the throughput rule decided alone); null when it could. */
    val error: String?,
)
