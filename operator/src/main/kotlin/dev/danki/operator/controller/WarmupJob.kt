package dev.danki.operator.controller

import dev.danki.operator.aot.AotReport
import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.AttemptListener
import dev.danki.operator.warmup.AttemptsResult
import dev.danki.operator.warmup.ColdPass
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.PhaseRuns
import dev.danki.operator.warmup.TargetPod
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPhase
import dev.danki.operator.warmup.WarmupPlan
import dev.danki.operator.warmup.WarmupTask
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant

/**
 * The body of one warm-up on the pool: k6 attempts, then the result recorded. Runs off the reconcile
 * workers; the pool requeues the pod once the job is over, so the next reconcile sees it finished.
 */
class WarmupJob(
    private val config: OperatorConfig,
    private val attempts: WarmupAttempts,
    /** Attempts in runner pods, for custom flows; null when the operator creates none. */
    private val runnerAttempts: WarmupAttempts?,
    private val recorder: RunRecorder,
    private val events: EventRecorder,
    /** Raises a gated pod's CPU for its warm-up, as its plan asks, and restores it before the gate. */
    private val boosts: CpuBoost,
    /** What each pod made of its AOT cache; null when danki trains none. */
    private val aot: AotReport? = null,
) {
    private val log = LoggerFactory.getLogger(WarmupJob::class.java)

    /** What the reconciler hands over; [status] is this run's status, owned by the job from here on. */
    data class Input(
        val ref: RunRef,
        val plan: WarmupPlan,
        val deadline: Instant,
        val readySeenAt: Instant,
        val status: WarmupRunStatus,
    )

    /**
     * Warms the pod and records the result. Anything thrown before a result exists (the AOT report's
     * status write, a resize, an API call of an attempt) ends the job as a crash, which the pool reports
     * and [WarmupCompletions] backs off: a job that ended without a result and without a crash would be
     * started again by the next reconcile, at once, until the pod's deadline.
     */
    fun run(task: WarmupTask, input: Input) {
        val result = warmUp(task, input)
        try {
            record(input, input.plan, result)
        } catch (e: KubernetesClientException) {
            // the result is kept in memory; the reconcile after this job publishes it again
            log
                .atWarn()
                .addKeyValue("namespace", input.ref.namespace)
                .addKeyValue("pod", input.ref.pod.metadata.name)
                .setCause(e)
                .log("warm-up result not fully recorded")
        }
    }

    /** The k6 attempts, with a CPU boost when the plan asks for one: their result, not yet recorded. */
    private fun warmUp(task: WarmupTask, input: Input): AttemptsResult {
        val pod = input.ref.pod
        val status = input.status
        val podIP = pod.status.podIP
        val now = Instant.now()
        status.phase = WarmupRun.PHASE_RUNNING
        status.startTime = RunStatuses.precise(now)
        status.queueWait = DurationFormat.format(Duration.between(input.readySeenAt, now).coerceAtLeast(Duration.ZERO))
        // its JVM has started: whether it mapped the cache is in the first lines of its log
        if (status.aotCache == null) status.aotCache = aot?.of(pod)
        val plan = input.plan
        val request =
            K6Request(
                runName = "${input.ref.namespace}.${input.ref.runName}",
                baseUrl = status.target ?: "http://$podIP:${plan.port}",
                plan = plan,
                jitMetricsUrl = plan.jitMetrics?.let { "http://$podIP:${it.port}${it.path}" },
                target = TargetPod(pod.metadata.namespace, pod.metadata.name, pod.metadata.uid, podIP),
                deadline = input.deadline,
                maxErrorRatio = config.maxErrorRatio,
            )
        // a custom flow runs in runner pods, the built-in plan in the operator's own k6
        val where = plan.script?.let { runnerAttempts ?: error("no runner pods for a custom flow") } ?: attempts
        val admitted = CpuBoost.fromAdmission(pod)
        val resized = admitted == null && (plan.warmupCpu != null || status.cpuBoost != null)
        // a boost raised after the cold pass sends that pass alone, so an open one: the warm pass is taken alike
        val sent = if (resized) request.copy(plan = plan.copy(coldPass = ColdPass.OPEN)) else request
        val runs = PhaseRuns(where, sent, task, Listener(input, plan))
        when {
            admitted != null -> boostedSinceAdmission(input, admitted, runs)
            resized -> boosted(input, plan, runs)
            else -> runs.send(WarmupPhase.ALL)
        }
        return runs.result()
    }

    /**
     * A warm-up with a CPU boost: the boost is for the JIT, which the warm-up phase feeds, while the cold
     * and warm passes measure the pod as its users meet it. So the cold pass runs first at the pod's own
     * CPU, the boost is raised for the warm-up, and the pod's own CPU is back before the warm pass, and so
     * before record() sets its gate, whatever the outcome. A boost a stopped leader left is still on
     * during this cold pass.
     */
    private fun boosted(input: Input, plan: WarmupPlan, runs: PhaseRuns) {
        val pod = input.ref.pod
        val status = input.status
        try {
            if (!runs.send(COLD)) return
            status.cpuBoost =
                boosts.raise(pod, plan, status.cpuBoost) { record ->
                    status.cpuBoost = record
                    // not writeProgress, which swallows a failure: no resize without its record on the run
                    recorder.progress(input.ref.namespace, input.ref.runName, status)
                }
            if (status.cpuBoost?.state != CpuBoostStatus.BOOSTED) {
                runs.send(WARMUP_AND_WARM)
                return
            }
            runs.send(WARMUP)
        } finally {
            boosts.end(pod, status.cpuBoost)
        }
        if (runs.completed) runs.send(WARM)
    }

    /**
     * A pod the webhook boosted at admission: its JVM started, loaded and compiled at the boost, and its cold
     * pass and warm-up run at it too; its declared CPU is back before the warm pass, and so before record()
     * sets its gate, whatever the outcome. The record is the pod's own ([CpuBoost.fromAdmission]): this
     * run's copy of it only shows it, and a new leader finds it on the pod without it.
     *
     * The cold pass and the warm-up are one k6 run: no CPU changes between them, so the plan's cold-pass
     * applies as without a boost (by default the warm-up's first answers, which cost no time of their own;
     * a cold-only run would be an open pass of 5 s at 20/s that warms the pod no faster).
     */
    private fun boostedSinceAdmission(input: Input, admitted: CpuBoostStatus, runs: PhaseRuns) {
        val status = input.status
        status.cpuBoost = admitted
        writeProgress(input, status)
        try {
            runs.send(COLD_AND_WARMUP)
        } finally {
            boosts.end(input.ref.pod, status.cpuBoost)
        }
        if (runs.completed) runs.send(WARM)
    }

    private fun record(input: Input, plan: WarmupPlan, result: AttemptsResult) {
        val ref = input.ref
        val status = input.status
        val log = log.atInfo().addKeyValue("namespace", ref.namespace).addKeyValue("pod", ref.pod.metadata.name)
        val notRestored = status.cpuBoost?.takeIf { it.state == CpuBoostStatus.NOT_RESTORED }
        when (val outcome = result.outcome) {
            is K6Outcome.Completed if notRestored != null -> {
                status.attempts = result.attempts
                val why = "warmed, but its CPU is still above what it declared: ${notRestored.message ?: ""}"
                recorder.failed(ref, status, Keys.RunConditions.REASON_CPU_BOOST_NOT_RESTORED, why)
                log.addKeyValue("reason", Keys.RunConditions.REASON_CPU_BOOST_NOT_RESTORED).log("warm-up failed")
            }

            is K6Outcome.Completed -> {
                // to the first attempt: a retry after a not-yet-listening target is not reaction time
                val first = result.firstRequestAtMillis
                status.reactionMillis = (first - input.readySeenAt.toEpochMilli()).takeIf { first > 0 }
                status.k6StartupMillis = result.k6StartupMillis
                recorder.succeeded(ref, status, outcome.summary, plan.minWarmupRequests)
                log
                    .addKeyValue("attempts", result.attempts)
                    .addKeyValue("reactionMillis", status.reactionMillis)
                    .addKeyValue("k6StartupMillis", status.k6StartupMillis)
                    .addKeyValue("result", status.message)
                    .log("pod warmed")
            }

            is K6Outcome.Failed -> {
                status.attempts = result.attempts
                recorder.failed(ref, status, outcome.reason, outcome.message)
                log.addKeyValue("reason", outcome.reason).addKeyValue("message", outcome.message).log("warm-up failed")
            }

            K6Outcome.Cancelled -> {
                log.log("warm-up cancelled")
            }
        }
    }

    private inner class Listener(
        private val input: Input,
        /** The plan this pod is warmed with: [Input.plan], with the lower floor if it started from its cache. */
        private val plan: WarmupPlan,
    ) : AttemptListener {
        override fun attemptStarted(attempt: Int) {
            val status = input.status
            status.attempts = attempt
            writeProgress(input, status)
            if (attempt == 1) {
                val cpu =
                    plan.warmupCpu?.let { "; CPU limit raised to ${it.describe()} for the warm-up" }
                        ?: ""
                val rule = if (plan.jitMetrics != null) "until the JIT settles" else "until latency converges"
                val floor = if (plan.minWarmupRequests < input.plan.minWarmupRequests) LOWER_FLOOR else ""
                events.normal(
                    input.ref.pod,
                    Keys.EventReasons.WARMUP_STARTED,
                    "warming ${status.target}: ${plan.passRequests} cold requests at ${plan.rate}/s, " +
                        "warm-up with ${plan.warmupConcurrency} in flight up to ${plan.warmupRate}/s $rule " +
                        "(${plan.minWarmupRequests} to ${plan.maxWarmupRequests} requests$floor), " +
                        "${plan.passRequests} warm$cpu",
                )
            }
        }

        override fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration) {
            val retry = "retrying in ${retryIn.toMillis()}ms"
            val why = "${failure.reason}: ${failure.message}"
            input.status.message = Messages.cut("attempt $attempt failed ($why); $retry")
            writeProgress(input, input.status)
            log
                .atWarn()
                .addKeyValue("namespace", input.ref.namespace)
                .addKeyValue("pod", input.ref.pod.metadata.name)
                .addKeyValue("attempt", attempt)
                .addKeyValue("reason", failure.reason)
                .addKeyValue("message", failure.message)
                .log("warm-up attempt failed")
        }
    }

    private fun writeProgress(input: Input, status: WarmupRunStatus) {
        try {
            recorder.progress(input.ref.namespace, input.ref.runName, status)
        } catch (e: KubernetesClientException) {
            // progress is informational; the final status is what must land, and it is retried
            log
                .atWarn()
                .addKeyValue("namespace", input.ref.namespace)
                .addKeyValue("run", input.ref.runName)
                .setCause(e)
                .log("run progress not written")
        }
    }

    private companion object {
        const val LOWER_FLOOR = "; fewer, as the JVM started from its AOT cache"
        val COLD = setOf(WarmupPhase.COLD)
        val WARMUP = setOf(WarmupPhase.WARMUP)
        val WARM = setOf(WarmupPhase.WARM)
        val WARMUP_AND_WARM = setOf(WarmupPhase.WARMUP, WarmupPhase.WARM)
        val COLD_AND_WARMUP = setOf(WarmupPhase.COLD, WarmupPhase.WARMUP)
    }
}
