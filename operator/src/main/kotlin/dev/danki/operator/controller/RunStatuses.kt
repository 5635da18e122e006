package dev.danki.operator.controller

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.LatencyPercentiles
import dev.danki.operator.kube.RequestCounts
import dev.danki.operator.kube.StopEvidence
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.K6Summary
import dev.danki.operator.warmup.Percentiles
import dev.danki.operator.warmup.PhaseResult
import dev.danki.operator.warmup.WarmupEvidence
import io.fabric8.kubernetes.api.model.ConditionBuilder
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.Locale

/** How WarmupRun statuses, conditions and the one-line cold → warm table are written. */
object RunStatuses {
    /** Hundredths of a millisecond are below any latency k6 can resolve. */
    private const val HUNDREDTHS = 100.0
    private const val TENTHS = 10.0
    private const val MILLIS = 1_000.0

    fun stamp(instant: Instant): String = instant.truncatedTo(ChronoUnit.SECONDS).toString()

    /** A timestamp [stamp] or [precise] wrote (or the API server did), or null when absent or malformed. */
    fun instantOf(stamp: String?): Instant? = stamp?.let { runCatching { Instant.parse(it) }.getOrNull() }

    /** Start and completion keep milliseconds, so short runs get a meaningful duration. */
    fun precise(instant: Instant): String = instant.truncatedTo(ChronoUnit.MILLIS).toString()

    fun condition(ok: Boolean, reason: String, message: String, at: Instant) =
        ConditionBuilder()
            .withType(Keys.RunConditions.COMPLETED)
            .withStatus(if (ok) "True" else "False")
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(stamp(at))
            .build()

    fun requests(summary: K6Summary) =
        RequestCounts().apply {
            cold = summary.cold.requests
            warmup = summary.warmup.requests
            warm = summary.warm.requests
            total = summary.totalRequests
            failed = summary.totalFailures
        }

    /** A pass's percentiles and, when the summary said, how it was measured. */
    fun percentiles(pass: PhaseResult): LatencyPercentiles? {
        val p = pass.latency ?: return null
        return LatencyPercentiles().apply {
            p25 = round(p.p25)
            p50 = round(p.p50)
            p75 = round(p.p75)
            p90 = round(p.p90)
            p95 = round(p.p95)
            source = pass.protocol?.source
            requests = pass.protocol?.requests
            ratePerSecond = pass.protocol?.rate
            concurrency = pass.protocol?.concurrency
        }
    }

    /** The stop rule's evidence; [floor] is the plan's minimum of warm-up requests, which k6 was given. */
    fun evidence(e: WarmupEvidence, floor: Int) =
        StopEvidence().apply {
            rule = e.rule
            concurrency = e.concurrency
            requests = e.requests
            minRequests = floor
            blocks = e.blocks
            blockSize = e.blockSize
            window = e.window.takeIf { it > 0 }
            tolerance = e.tolerance
            lastBlockP95 = e.lastBlockP95?.let(::round)
            lastBlockRate = e.lastBlockRate?.let { round(it, TENTHS) }
            recentRate = e.recentRate?.let { round(it, TENTHS) }
            earlierRate = e.earlierRate?.let { round(it, TENTHS) }
            recentCpuPerRequestMillis = e.recentCpuPerRequestMs?.let(::round)
            earlierCpuPerRequestMillis = e.earlierCpuPerRequestMs?.let(::round)
            requestsPerSecond = e.achievedRate?.let { round(it, TENTHS) }
            drainSeconds = e.drainSeconds
            jitCompileMillis = e.jit?.compileMs
            jitLastShare = e.jit?.lastShare?.let(::round)
            jitMetric = e.jit?.metric
            cpuMetric = e.jit?.cpuMetric
            jitError = e.jit?.error
        }

    /** Wall time from the status' start to its completion, in seconds; null while either is missing. */
    fun seconds(status: WarmupRunStatus): Double? {
        val start = status.startTime ?: return null
        val end = status.completionTime ?: return null
        return Duration.between(Instant.parse(start), Instant.parse(end)).toMillis() / MILLIS
    }

    fun ms(value: Double?) = value?.let { String.format(Locale.ROOT, "%.1fms", it) } ?: "n/a"

    /** The gate message: `cold p95 347.1ms -> warm p95 1.4ms`. */
    fun coldToWarm(summary: K6Summary): String {
        val cold = ms(summary.cold.latency?.p95)
        return "cold p95 $cold -> warm p95 ${ms(summary.warm.latency?.p95)}"
    }

    /** One line: `p25/p50/p75/p90/p95 cold 12/15/20/40/80ms -> warm 2/2/3/4/5ms (...)`. */
    fun table(summary: K6Summary): String {
        fun row(p: Percentiles?) = p?.asMap()?.values?.joinToString("/") { oneDecimal(it) } ?: "n/a"
        return "p25/p50/p75/p90/p95 cold ${row(summary.cold.latency)}ms -> warm ${row(summary.warm.latency)}ms " +
            "(${summary.totalRequests} requests, warm-up stopped: ${summary.stopReason}${why(summary.evidence)})"
    }

    /**
     * `, 1200 warm-up requests, 80.1 -> 82.3 requests/s, JIT 4210ms`: the stop's evidence in the Event; with the
     * cpu rule also `, CPU per request 3.62 -> 3.41ms`.
     */
    private fun why(e: WarmupEvidence?): String {
        if (e == null) return ""
        val jit = e.jit?.compileMs?.let { ", JIT ${oneDecimal(it)}ms" } ?: ""
        val earlier = e.earlierRate?.let(::oneDecimal) ?: "n/a"
        val rates = e.recentRate?.let { ", $earlier -> ${oneDecimal(it)} requests/s" } ?: ""
        val hundredths = { ms: Double -> String.format(Locale.ROOT, "%.2f", ms) }
        val earlierCost = e.earlierCpuPerRequestMs?.let(hundredths) ?: "n/a"
        val cost = e.recentCpuPerRequestMs?.let { ", CPU per request $earlierCost -> ${hundredths(it)}ms" } ?: ""
        return ", ${e.requests} warm-up requests$rates$cost$jit"
    }

    /** [value] to hundredths, or to tenths with [scale] = [TENTHS] (requests/s). */
    private fun round(value: Double, scale: Double = HUNDREDTHS) = Math.round(value * scale) / scale

    private fun oneDecimal(value: Double) = String.format(Locale.ROOT, "%.1f", value)
}
