package dev.danki.operator.controller

import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.BoundedMap
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.LatencyPercentiles
import dev.danki.operator.kube.RequestCounts
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.K6Summary
import dev.danki.operator.warmup.Percentiles
import io.fabric8.kubernetes.api.model.ConditionBuilder
import io.fabric8.kubernetes.api.model.Pod
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.Collections
import java.util.Locale

/** Which run of which pod, and the policy its Deployment set. */
data class RunRef(
    val pod: Pod,
    val runName: String,
    val deployment: String,
    val policy: FailurePolicy,
)

/** A run's final status and the policy that turns it into a gate decision. */
data class FinalResult(
    val status: WarmupRunStatus,
    val policy: FailurePolicy,
)

/**
 * Turns warm-up outcomes into records: the WarmupRun status, the pod's gate condition, Events and
 * metrics. Final results are also kept in memory, so a write that failed is repeated by the next
 * reconcile instead of the pod being warmed twice.
 */
class RunRecorder(
    private val runs: RunStore,
    private val gate: PodGate,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
    private val caches: Caches,
) {
    private val finals: MutableMap<String, FinalResult> = Collections.synchronizedMap(BoundedMap(MAX_REMEMBERED))

    /** The final phase this process recorded for a run, ahead of the informer cache. */
    fun finalPhase(runKey: String): String? = finals[runKey]?.status?.phase

    fun succeeded(
        ref: RunRef,
        status: WarmupRunStatus,
        summary: K6Summary,
    ) {
        val pod = ref.pod
        val now = Instant.now()
        status.apply {
            phase = WarmupRun.PHASE_SUCCEEDED
            completionTime = precise(now)
            duration = startTime?.let { DurationFormat.format(Duration.between(Instant.parse(it), now)) }
            requests =
                RequestCounts().apply {
                    cold = summary.cold.requests
                    warmup = summary.warmup.requests
                    warm = summary.warm.requests
                    total = summary.totalRequests
                    failed = summary.totalFailures
                }
            cold = summary.cold.latency?.let(::toStatus)
            warm = summary.warm.latency?.let(::toStatus)
            stopReason = summary.stopReason.name
            reason = Keys.RunConditions.REASON_SUCCEEDED
            message = "cold p95 ${ms(summary.cold.latency?.p95)} -> warm p95 ${ms(summary.warm.latency?.p95)}"
            conditions = listOf(condition(true, Keys.RunConditions.REASON_SUCCEEDED, message!!, now))
        }
        finish(pod, ref.runName, FinalResult(status, ref.policy))
        events.normal(pod, Keys.EventReasons.WARMED_UP, table(summary))
        metrics.resultMeasured(pod.metadata.namespace, ref.deployment, summary)
        metrics.runFinished(pod.metadata.namespace, ref.deployment, WarmupMetrics.SUCCEEDED, seconds(status))
    }

    fun failed(
        ref: RunRef,
        status: WarmupRunStatus,
        reason: String,
        why: String,
    ) {
        val pod = ref.pod
        val policy = ref.policy
        val now = Instant.now()
        status.apply {
            phase = WarmupRun.PHASE_FAILED
            completionTime = precise(now)
            duration = startTime?.let { DurationFormat.format(Duration.between(Instant.parse(it), now)) }
            this.reason = reason
            message = why
            conditions = listOf(condition(false, reason, why, now))
        }
        finish(pod, ref.runName, FinalResult(status, ref.policy))
        val outcome =
            if (policy ==
                FailurePolicy.OPEN
            ) {
                "released (failure policy open)"
            } else {
                "kept out of its Service (failure policy closed)"
            }
        events.warning(pod, Keys.EventReasons.WARMUP_FAILED, "$reason: $why; pod $outcome")
        val result = if (policy == FailurePolicy.OPEN) WarmupMetrics.FAILED_OPEN else WarmupMetrics.FAILED_CLOSED
        metrics.runFinished(pod.metadata.namespace, ref.deployment, result, seconds(status))
    }

    private fun finish(
        pod: Pod,
        runName: String,
        result: FinalResult,
    ) {
        finals["${pod.metadata.namespace}/$runName"] = result
        publish(pod, runName, null)
    }

    /** Writes a final result onto the WarmupRun (if the cache lags) and the gate; safe to repeat. */
    fun publish(
        pod: Pod,
        runName: String,
        cached: WarmupRun?,
    ) {
        val key = "${pod.metadata.namespace}/$runName"
        val result = finals[key] ?: cached?.let { fromRun(it) } ?: return
        if (cached?.status?.phase != result.status.phase) {
            runs.writeStatus(pod.metadata.namespace, runName, result.status)
        }
        val latest = caches.pods.get(pod.metadata.namespace, pod.metadata.name) ?: pod
        gate.write(latest, gateFor(result))
    }

    /** Records a still-open run as it stands (Pending, Running, attempts). */
    fun progress(
        namespace: String,
        runName: String,
        status: WarmupRunStatus,
    ) = runs.writeStatus(namespace, runName, status)

    private fun fromRun(run: WarmupRun): FinalResult? {
        val status = run.status ?: return null
        val policy = FailurePolicy.parse(run.spec?.failurePolicy ?: "") ?: FailurePolicy.OPEN
        return FinalResult(status, policy)
    }

    companion object {
        private const val MAX_REMEMBERED = 5_000
        private const val MILLIS = 1_000.0

        fun gateFor(result: FinalResult): GateCondition {
            val status = result.status
            return when {
                status.phase == WarmupRun.PHASE_SUCCEEDED -> {
                    GateCondition(true, Keys.GateReasons.WARMED_UP, status.message ?: "warmed up")
                }

                result.policy == FailurePolicy.OPEN -> {
                    GateCondition(true, Keys.GateReasons.WARMUP_FAILED_OPEN, "${status.reason}: ${status.message}")
                }

                else -> {
                    GateCondition(false, Keys.GateReasons.WARMUP_FAILED, "${status.reason}: ${status.message}")
                }
            }
        }

        fun stamp(instant: Instant): String = instant.truncatedTo(ChronoUnit.SECONDS).toString()

        /** Start and completion keep milliseconds, so short runs get a meaningful duration. */
        fun precise(instant: Instant): String = instant.truncatedTo(ChronoUnit.MILLIS).toString()

        fun condition(
            ok: Boolean,
            reason: String,
            message: String,
            at: Instant,
        ) = ConditionBuilder()
            .withType(Keys.RunConditions.COMPLETED)
            .withStatus(if (ok) "True" else "False")
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(stamp(at))
            .build()

        private fun toStatus(p: Percentiles) =
            LatencyPercentiles().apply {
                p25 = round(p.p25)
                p50 = round(p.p50)
                p75 = round(p.p75)
                p90 = round(p.p90)
                p95 = round(p.p95)
            }

        /** Hundredths of a millisecond are below any latency k6 can resolve. */
        private const val HUNDREDTHS = 100.0

        private fun round(value: Double) = Math.round(value * HUNDREDTHS) / HUNDREDTHS

        private fun ms(value: Double?) = value?.let { String.format(Locale.ROOT, "%.1fms", it) } ?: "n/a"

        private fun seconds(status: WarmupRunStatus): Double? {
            val start = status.startTime ?: return null
            val end = status.completionTime ?: return null
            return Duration.between(Instant.parse(start), Instant.parse(end)).toMillis() / MILLIS
        }

        private fun oneDecimal(value: Double) = String.format(Locale.ROOT, "%.1f", value)

        /** One line: `p25/p50/p75/p90/p95 cold 12/15/20/40/80ms -> warm 2/2/3/4/5ms (...)`. */
        fun table(summary: K6Summary): String {
            fun row(p: Percentiles?) = p?.asMap()?.values?.joinToString("/") { oneDecimal(it) } ?: "n/a"
            return "p25/p50/p75/p90/p95 cold ${row(summary.cold.latency)}ms -> warm ${row(summary.warm.latency)}ms " +
                "(${summary.totalRequests} requests, warm-up stopped: ${summary.stopReason})"
        }
    }
}
