package dev.danki.operator.controller

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.GateRule
import dev.danki.operator.gate.PodGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.ApiStatus
import dev.danki.operator.kube.BoundedMap
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.leader.NotLeading
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.K6Summary
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.Collections

/**
 * Turns warm-up outcomes into records: the pod's gate condition, the WarmupRun status, Events,
 * metrics and (for a result, not a cancellation) the Deployment's history. Final results are kept in
 * memory first, so a write that failed is repeated by the next reconcile instead of the pod being
 * warmed twice. The gate goes first, so no other write (WarmupRun, Event, metrics, history) can keep
 * a pod's decision from it, and a failure of one of them cannot undo it. A result decides the gate only
 * while its run is the pod's current one: one that comes after the containers restarted is recorded on
 * its own run, and the newer run decides.
 */
class RunRecorder(
    private val runs: RunStore,
    private val gate: PodGate,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
    private val caches: Caches,
    private val history: RunHistory,
) {
    private val log = LoggerFactory.getLogger(RunRecorder::class.java)
    private val json = ObjectMapper()
    private val finals: MutableMap<String, FinalResult> = Collections.synchronizedMap(BoundedMap(MAX_REMEMBERED))

    /** The final status this process recorded for a run, ahead of the informer cache. */
    fun finalStatus(runKey: String): WarmupRunStatus? = finals[runKey]?.status

    /** A failed run is tried again: its final result is forgotten, and the pod's Events say why. */
    fun retrying(pod: Pod, runKey: String, cause: String) {
        finals.remove(runKey)
        events.normal(pod, Keys.EventReasons.WARMUP_RETRIED, "warming again: $cause")
    }

    /**
     * Ends a record that will never end on its own, so none stays Pending or Running for good: a run
     * whose warm-up was cancelled (containers restarted, warm-up disabled), or one whose pod a leader
     * decided before it stopped without writing the record. [cpuBoost]: the boost a leader left on the
     * pod, as it ended (restored or not); null keeps the run's.
     */
    fun close(pod: Pod, run: WarmupRun, phase: String, reason: String, why: String, cpuBoost: CpuBoostStatus? = null) {
        // a copy: the cached object belongs to the informer
        val status = json.convertValue(run.status ?: WarmupRunStatus(), WarmupRunStatus::class.java)
        cpuBoost?.let { status.cpuBoost = it }
        end(status, phase, reason, why)
        if (phase == WarmupRun.PHASE_SUCCEEDED) {
            status.conditions = listOf(RunStatuses.condition(true, reason, status.message!!, Instant.now()))
        }
        runs.writeStatus(pod.metadata.namespace, run.metadata.name, status)
    }

    /** [minWarmupRequests]: the floor the pod's plan had, which its evidence shows. */
    fun succeeded(ref: RunRef, status: WarmupRunStatus, summary: K6Summary, minWarmupRequests: Int) {
        val now = Instant.now()
        status.apply {
            phase = WarmupRun.PHASE_SUCCEEDED
            completionTime = RunStatuses.precise(now)
            duration = durationOf(startTime, now)
            requests = RunStatuses.requests(summary)
            cold = RunStatuses.percentiles(summary.cold)
            warm = RunStatuses.percentiles(summary.warm)
            stopReason = summary.stopReason.name
            stopEvidence = summary.evidence?.let { RunStatuses.evidence(it, minWarmupRequests) }
            scriptNotes = summary.notes.takeIf { it.isNotEmpty() }
            reason = Keys.RunConditions.REASON_SUCCEEDED
            message = RunStatuses.coldToWarm(summary)
            conditions = listOf(RunStatuses.condition(true, Keys.RunConditions.REASON_SUCCEEDED, message!!, now))
        }
        finish(ref, status) { decides ->
            val table = RunStatuses.table(summary)
            events.normal(ref.pod, Keys.EventReasons.WARMED_UP, if (decides) table else "$table; $LATE")
            metrics.resultMeasured(ref.namespace, ref.deployment, summary)
            metrics.runFinished(ref.namespace, ref.deployment, WarmupMetrics.SUCCEEDED, RunStatuses.seconds(status))
        }
    }

    fun failed(ref: RunRef, status: WarmupRunStatus, reason: String, why: String) {
        end(status, WarmupRun.PHASE_FAILED, reason, why)
        val open = ref.policy == FailurePolicy.OPEN
        val outcome = if (open) "released (failure policy open)" else "kept out of its Service (failure policy closed)"
        finish(ref, status) { decides ->
            val applied = if (decides) "pod $outcome" else LATE
            events.warning(ref.pod, Keys.EventReasons.WARMUP_FAILED, "$reason: $why; $applied")
            val result = if (open) WarmupMetrics.FAILED_OPEN else WarmupMetrics.FAILED_CLOSED
            metrics.runFinished(ref.namespace, ref.deployment, result, RunStatuses.seconds(status))
            metrics.runFailed(ref.namespace, ref.deployment, reason)
        }
    }

    /**
     * Keeps and publishes a final result, the gate first; then what no pod waits for, even if a write
     * failed. [report] is told whether the result decided the gate (false: a newer run decides it).
     */
    private fun finish(ref: RunRef, status: WarmupRunStatus, report: (decides: Boolean) -> Unit) {
        finals[ObjectKeys.of(ref.namespace, ref.runName)] = FinalResult(status, ref.spec)
        var decides = true
        var reports = true
        try {
            decides = publish(ref.pod, ref.runName, null)
        } catch (e: NotLeading) {
            // this replica lost its Lease: the next leader decides the pod, and says so
            reports = false
            throw e
        } finally {
            if (reports) {
                report(decides)
                history.record(ref.namespace, ref.deployment, ref.runName, ref.pod.spec?.nodeName, status)
            }
        }
    }

    /** Ends [status] without a result: [phase], now, [reason] and the cut message, in a False condition. */
    private fun end(status: WarmupRunStatus, phase: String, reason: String, why: String) {
        val now = Instant.now()
        status.apply {
            this.phase = phase
            completionTime = RunStatuses.precise(now)
            duration = durationOf(startTime, now)
            this.reason = reason
            message = Messages.cut(why)
            conditions = listOf(RunStatuses.condition(false, reason, message!!, now))
        }
    }

    /**
     * Writes a final result onto the pod's gate, if its run is still the pod's current one, then onto its
     * WarmupRun (recreated if it vanished); safe to repeat. A failure of one write does not skip the
     * other; the first one is rethrown. Returns whether the result decided the gate: false when there is
     * none, or when the containers restarted since and a newer run decides.
     */
    fun publish(pod: Pod, runName: String, cached: WarmupRun?): Boolean {
        val result =
            finals[ObjectKeys.of(pod.metadata.namespace, runName)] ?: cached?.let { fromRun(it) } ?: return false
        val latest = caches.pods.get(pod.metadata.namespace, pod.metadata.name) ?: pod
        var decides = false
        var failure: KubernetesClientException? = null
        try {
            decides = gateIfCurrent(latest, runName, result.gate())
        } catch (e: KubernetesClientException) {
            failure = e
        }
        try {
            record(pod, runName, result, cached)
        } catch (e: KubernetesClientException) {
            failure?.addSuppressed(e) ?: run { failure = e }
        }
        failure?.let { throw it }
        if (!decides) {
            log
                .atInfo()
                .addKeyValue("namespace", pod.metadata.namespace)
                .addKeyValue("pod", pod.metadata.name)
                .addKeyValue("run", runName)
                .log("result of an earlier run recorded on that run only: the containers restarted since")
        }
        return decides
    }

    /**
     * Writes [wanted] onto the gate only while [runName] is the pod's current run, so a result that
     * comes after a restart cannot release the pod a newer run is warming. The cache may not have seen
     * the restart yet: the write holds only for the pod as judged (its resourceVersion), and when the
     * API server refuses it the pod is read from there and judged again. Whether the gate took it.
     */
    private fun gateIfCurrent(pod: Pod, runName: String, wanted: GateCondition): Boolean {
        if (PodGate.currentRun(pod) != runName) return false
        try {
            gate.write(pod, wanted, ifUnchanged = true)
            return true
        } catch (e: KubernetesClientException) {
            if (e.code != ApiStatus.CONFLICT) throw e
        }
        val now = gate.read(pod)?.takeIf { PodGate.currentRun(it) == runName } ?: return false
        gate.write(now, wanted, ifUnchanged = true)
        return true
    }

    /**
     * For a pod whose gate is already decided: makes sure its WarmupRun shows the result this process
     * holds; false when it holds none.
     */
    fun syncRecord(pod: Pod, runName: String, cached: WarmupRun?): Boolean {
        val result = finals[ObjectKeys.of(pod.metadata.namespace, runName)] ?: return false
        record(pod, runName, result, cached)
        return true
    }

    /** Records a still-open run as it stands (Pending, Running, attempts). */
    fun progress(namespace: String, runName: String, status: WarmupRunStatus) =
        runs.writeStatus(namespace, runName, status)

    private fun record(pod: Pod, runName: String, result: FinalResult, cached: WarmupRun?) {
        if (cached?.status?.phase == result.status.phase) return
        try {
            runs.writeStatus(pod.metadata.namespace, runName, result.status)
        } catch (e: KubernetesClientException) {
            if (e.code != ApiStatus.NOT_FOUND) throw e
            // deleted by a user (or never created): the record comes back, owned by its pod
            runs.create(pod, runName, result.spec, result.status)
        }
    }

    private fun fromRun(run: WarmupRun): FinalResult? {
        val status = run.status ?: return null
        return FinalResult(status, run.spec ?: return null)
    }

    private fun durationOf(startTime: String?, now: Instant) =
        startTime?.let { DurationFormat.format(Duration.between(Instant.parse(it), now)) }

    companion object {
        private const val MAX_REMEMBERED = 5_000

        /** What a late result's Event says instead of the gate it set. */
        private const val LATE = "not applied: the pod's containers restarted since, and a newer run decides its gate"
    }
}

/** A run's final status and the spec whose failure policy turns it into a gate decision. */
data class FinalResult(
    val status: WarmupRunStatus,
    val spec: WarmupRunSpec,
) {
    val policy: FailurePolicy get() = FailurePolicy.recorded(spec.failurePolicy)

    /** The pod's gate condition this result stands for. */
    fun gate(): GateCondition = GateRule.finished(status, policy)
}
