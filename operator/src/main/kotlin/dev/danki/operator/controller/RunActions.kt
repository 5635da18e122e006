package dev.danki.operator.controller

import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.gate.GateRule
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.NodeCaps
import dev.danki.operator.warmup.PodNode
import dev.danki.operator.warmup.RunOwner
import dev.danki.operator.warmup.WarmupPools
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant

/**
 * The writes behind the pod reconciler's decisions: start a warm-up, fail a run, release or reset a gate.
 * A run that ends here, without its warm-up, first puts back a CPU boost that a leader left on its pod
 * when it stopped mid-warm-up: no pod joins its Service, or stays there, at the boost.
 */
class RunActions(
    private val runs: RunStore,
    private val gate: PodGate,
    private val recorder: RunRecorder,
    private val pool: WarmupPools,
    private val job: WarmupJob,
    private val nodeCaps: NodeCaps,
    private val boosts: CpuBoost,
) {
    private val log = LoggerFactory.getLogger(RunActions::class.java)

    fun release(ctx: RunContext) {
        val startedHere = pool.cancelPod(ctx.podKey)
        val run = ctx.cachedRun?.takeIf { ctx.retry.latest?.phase in OPEN_PHASES }
        // a pod boosted at admission is released at its declared CPU, also before any run of its own
        val boost = if (run != null) restoreLeft(ctx.pod, run, startedHere) else boosts.restoreLeft(ctx.pod, null)
        gate.write(ctx.pod, GateRule.disabled())
        run ?: return
        val why = "${GateRule.DISABLED_MESSAGE} before it ended"
        recorder.close(ctx.pod, run, WarmupRun.PHASE_CANCELLED, Keys.RunConditions.REASON_WARMUP_DISABLED, why, boost)
    }

    /**
     * Cancels the records of [runs] of an earlier restart count that are still open: the current run took
     * over. [startedHere]: the runs whose warm-ups this process had started and just cancelled.
     */
    fun supersede(ctx: RunContext, runs: List<WarmupRun>, startedHere: Set<String>) =
        runs
            .filter { (it.spec?.restartCount ?: 0) < ctx.restarts && it.status?.phase in OPEN_PHASES }
            .forEach {
                val why = "the pod's containers restarted (restart count ${ctx.restarts}); run ${ctx.runName} took over"
                val boost = restoreLeft(ctx.pod, it, startedHere)
                val reason = Keys.RunConditions.REASON_CONTAINER_RESTARTED
                recorder.close(ctx.pod, it, WarmupRun.PHASE_CANCELLED, reason, why, boost)
            }

    /** A warm-up cancelled here puts back its own boost; a boost a stopped leader left is put back now. */
    private fun restoreLeft(pod: Pod, run: WarmupRun, startedHere: Set<String>) =
        if (ObjectKeys.of(run) in startedHere) null else boosts.restoreLeft(pod, run.status)

    /**
     * Closes the record of a pod whose gate a leader decided and that stopped before writing the
     * record (its Lease lost mid-write): the gate's reason and message are all that is left of it.
     */
    fun closeFromGate(pod: Pod, run: WarmupRun, gate: PodCondition) {
        val why = "recorded from the pod's gate (the leader that decided it stopped first): ${gate.message ?: ""}"
        val (phase, reason) =
            when (gate.reason) {
                Keys.GateReasons.WARMED_UP -> {
                    WarmupRun.PHASE_SUCCEEDED to Keys.RunConditions.REASON_SUCCEEDED
                }

                Keys.GateReasons.WARMUP_DISABLED -> {
                    WarmupRun.PHASE_CANCELLED to
                        Keys.RunConditions.REASON_WARMUP_DISABLED
                }

                else -> {
                    WarmupRun.PHASE_FAILED to (gate.reason ?: Keys.GateReasons.WARMUP_FAILED)
                }
            }
        // the pod may already serve: it does so at its own CPU from here on
        recorder.close(pod, run, phase, reason, why, boosts.restoreLeft(pod, run.status))
    }

    fun resetAfterRestart(ctx: RunContext) {
        gate.write(ctx.pod, GateRule.containerRestarted(ctx.restarts))
    }

    /** Creates (or resets) the run, shown Pending, and queues its warm-up; returns when to look again. */
    fun start(ctx: RunContext, readySeenAt: Instant): Duration? {
        val pod = ctx.pod
        val plan = ctx.plan.plan ?: return null
        val status = baseStatus(ctx, WarmupRun.PHASE_PENDING)
        ctx.retry.check.cause?.let { cause ->
            recorder.retrying(ctx.pod, ctx.runKey, cause)
            if (PodGate.conditionOf(pod)?.status == "True") {
                gate.write(pod, GateRule.rewarming(cause))
            }
        }
        status.target = "http://${pod.status.podIP}:${plan.port}"
        // the record first, so the job's status writes always find it; the run shows Pending while queued
        if (ctx.cachedRun == null) {
            runs.create(pod, ctx.runName, ctx.spec, status)
        } else {
            recorder.progress(pod.metadata.namespace, ctx.runName, status)
        }
        val input = WarmupJob.Input(ctx.ref, plan, ctx.deadline, readySeenAt, status)
        val owner = RunOwner(pod.metadata.namespace, ctx.deployment.ifEmpty { "pod:${pod.metadata.name}" })
        val node =
            pod.spec
                ?.nodeName
                ?.takeIf { it.isNotEmpty() }
                ?.let { PodNode(it, nodeCaps.of(it)) } ?: PodNode.UNKNOWN
        val queued = pool.submit(plan, ctx.runKey, ctx.podKey, owner, node) { task -> job.run(task, input) }
        if (!queued) return QUEUE_FULL_RETRY
        log
            .atInfo()
            .addKeyValue("namespace", pod.metadata.namespace)
            .addKeyValue("pod", pod.metadata.name)
            .addKeyValue("run", ctx.runName)
            .addKeyValue("target", status.target)
            .log("warm-up queued")
        return untilDeadline(ctx.deadline)
    }

    /** Fails a run whose timeout passed: a queued one leaves the queue first and never starts k6. */
    fun failTimeout(ctx: RunContext): Duration? {
        val wasQueued = pool.isQueued(ctx.runKey)
        // a worker took it a moment ago: it fails itself on the deadline, so wait for its result
        if (!pool.withdraw(ctx.runKey)) return untilDeadline(ctx.deadline)
        if (wasQueued) {
            fail(ctx, Keys.RunConditions.REASON_QUEUE_TIMEOUT, "queued until the deadline; k6 never started")
        } else {
            fail(ctx, Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        }
        return null
    }

    /** Fails the run (creating its record if needed) and applies the failure policy, at the pod's own CPU. */
    fun fail(ctx: RunContext, reason: String, why: String) {
        val status = baseStatus(ctx, WarmupRun.PHASE_FAILED)
        boosts.end(ctx.pod, status.cpuBoost)
        recorder.failed(ctx.ref, status, reason, why)
    }

    private fun baseStatus(ctx: RunContext, phase: String) =
        WarmupRunStatus().apply {
            this.phase = phase
            podName = ctx.pod.metadata.name
            podIP = ctx.pod.status?.podIP
            deadline = RunStatuses.stamp(ctx.deadline)
            attempts = 0
            // what the next retry check compares with; a retry counts itself and says why
            configDigest = ctx.retry.digest.ifEmpty { null }
            rewarm = ctx.retry.rewarmToken
            val earlier = ctx.retry.latest
            retries = (earlier?.retries ?: 0) + (if (ctx.retry.asked) 1 else 0)
            retryCause = ctx.retry.check.cause ?: earlier?.retryCause
            retryTime = if (ctx.retry.asked) RunStatuses.stamp(Instant.now()) else earlier?.retryTime
            if (retries == 0) retries = null
            // a leader that stopped mid-warm-up left the pod boosted (its own CPU is only in that record), or
            // the webhook boosted it at admission (its declared CPU is on the pod)
            cpuBoost = CpuBoost.leftOn(ctx.pod, ctx.cachedRun?.status)
        }

    companion object {
        /** Phases of a run that has not ended. */
        val OPEN_PHASES = setOf(WarmupRun.PHASE_PENDING, WarmupRun.PHASE_RUNNING)

        /** Look again just after a deadline, to fail a pod that is still waiting. */
        private val DEADLINE_SLACK: Duration = Duration.ofSeconds(1)

        /** A full warm-up queue drains at k6 speed; seconds, not milliseconds. */
        private val QUEUE_FULL_RETRY: Duration = Duration.ofSeconds(5)

        fun untilDeadline(deadline: Instant): Duration =
            Duration.between(Instant.now(), deadline).plus(DEADLINE_SLACK).coerceAtLeast(DEADLINE_SLACK)
    }
}
