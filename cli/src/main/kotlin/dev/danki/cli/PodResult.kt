package dev.danki.cli

import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Summary
import java.util.Locale

/** One warmed target's figures, as the tables show them: from a WarmupRun, or from a `danki bench` run. */
data class PodResult(
    val pod: String,
    val phase: String,
    val coldP50: Double? = null,
    val coldP95: Double? = null,
    val warmP50: Double? = null,
    val warmP95: Double? = null,
    /** Wall time of the warm-up, e.g. `12.3s`, as the run records it. */
    val duration: String? = null,
    val stopReason: String? = null,
    /** Why it failed or was cancelled, e.g. `TooManyErrors: 12 of 300 requests failed`. */
    val reason: String? = null,
    /** How long the pod waited for a warm-up slot after its containers were ready, e.g. `0.1s`. */
    val queueWait: String? = null,
    /** The CPU boost while the pod was gated, e.g. `200m->2`, or why there was none (`Refused`). */
    val boost: String? = null,
) {
    val warmed get() = phase == WarmupRun.PHASE_SUCCEEDED

    companion object {
        fun of(run: WarmupRun): PodResult {
            val status = run.status
            val why = listOfNotNull(status?.reason, status?.message).joinToString(": ").ifEmpty { null }
            return PodResult(
                pod = run.spec?.podName ?: run.metadata.name,
                phase = status?.phase ?: WarmupRun.PHASE_PENDING,
                coldP50 = status?.cold?.p50,
                coldP95 = status?.cold?.p95,
                warmP50 = status?.warm?.p50,
                warmP95 = status?.warm?.p95,
                duration = status?.duration,
                stopReason = status?.stopReason,
                reason = why.takeUnless { status?.phase == WarmupRun.PHASE_SUCCEEDED },
                queueWait = status?.queueWait,
                boost = status?.cpuBoost?.summary,
            )
        }

        /** A `danki bench` attempt against [target]. */
        fun of(target: String, outcome: K6Outcome): PodResult =
            when (outcome) {
                is K6Outcome.Completed -> {
                    fromSummary(target, WarmupRun.PHASE_SUCCEEDED, outcome.summary, null)
                }

                is K6Outcome.Failed -> {
                    val reason = "${outcome.reason}: ${outcome.message}"
                    outcome.summary?.let { fromSummary(target, WarmupRun.PHASE_FAILED, it, reason) }
                        ?: PodResult(target, WarmupRun.PHASE_FAILED, reason = reason)
                }

                K6Outcome.Cancelled -> {
                    PodResult(target, WarmupRun.PHASE_CANCELLED, reason = "cancelled")
                }
            }

        private fun fromSummary(target: String, phase: String, summary: K6Summary, reason: String?) =
            PodResult(
                pod = target,
                phase = phase,
                coldP50 = summary.cold.latency?.p50,
                coldP95 = summary.cold.latency?.p95,
                warmP50 = summary.warm.latency?.p50,
                warmP95 = summary.warm.latency?.p95,
                duration = String.format(Locale.ROOT, "%.1fs", summary.durationSeconds),
                stopReason = summary.stopReason.name,
                reason = reason,
            )
    }
}
