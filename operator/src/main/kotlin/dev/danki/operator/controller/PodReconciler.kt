package dev.danki.operator.controller

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.GateDecision
import dev.danki.operator.gate.PodFacts
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.PlanResult
import dev.danki.operator.warmup.WarmupPool
import io.fabric8.kubernetes.api.model.Pod
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * Decides, for one gated pod, what happens next ([GateDecision]) and does it: start a warm-up,
 * publish a finished one, release an opted-out pod, or fail a pod whose config is invalid or whose
 * timeout passed. It exists so that no pod carrying the gate is left without a decision.
 */
class PodReconciler(
    private val config: OperatorConfig,
    private val caches: Caches,
    private val runs: RunStore,
    private val gate: PodGate,
    private val recorder: RunRecorder,
    private val pool: WarmupPool,
    private val job: WarmupJob,
) {
    private val log = LoggerFactory.getLogger(PodReconciler::class.java)
    private val parser = PlanParser(config.defaultFailurePolicy)

    /** When this process first saw each pod's containers ready: the start of the reaction time. */
    private val readySeen = ConcurrentHashMap<String, Instant>()

    /** Handles one pod; returns when to look again, or null when only an event can change things. */
    fun reconcile(
        namespace: String,
        name: String,
    ): Duration? {
        val podKey = "$namespace/$name"
        val pod = caches.pods.get(namespace, name)
        if (pod == null) {
            pool.cancelPod(podKey)
            readySeen.keys.removeIf { it.startsWith("$podKey/") }
            return null
        }
        val restarts = PodGate.restartCount(pod)
        val runName = RunStore.runName(name, restarts)
        val runKey = "$namespace/$runName"
        val deploymentName = PodOwners.deploymentOf(pod)
        val deployment = deploymentName?.let { caches.deployments.get(namespace, it) }
        val optedIn = deployment?.metadata?.annotations?.get(Keys.Annotations.WARMUP) == Keys.Annotations.ENABLED
        val plan = parser.parse(deployment?.metadata?.annotations.orEmpty(), pod.spec)
        val podRuns = caches.runsOf(namespace, name).filter { it.spec?.podUid == pod.metadata.uid }
        val cachedRun = podRuns.firstOrNull { it.metadata.name == runName }
        val ready = PodGate.containersReady(pod)
        if (ready != null) readySeen.putIfAbsent("$podKey/$restarts", Instant.now())
        val deadline = deadlineOf(ready?.lastTransitionTime, cachedRun, plan)
        val facts =
            PodFacts(
                hasGate = PodGate.hasGate(pod),
                deleting = pod.metadata.deletionTimestamp != null,
                wanted = optedIn || deployment == null || TemplateGate.hasUserGate(deployment),
                containersReady = ready != null,
                hasPodIP = !pod.status?.podIP.isNullOrEmpty(),
                gateTrue = PodGate.conditionOf(pod)?.let { it.status == "True" },
                runPhase = recorder.finalPhase(runKey) ?: cachedRun?.status?.phase,
                olderRunExists = podRuns.any { (it.spec?.restartCount ?: 0) < restarts },
                activeHere = pool.isActive(runKey),
                invalidConfig = plan.problems.isNotEmpty(),
                deadlinePassed = Instant.now().isAfter(deadline),
            )
        val decision = GateDecision.decide(facts)
        log
            .atDebug()
            .addKeyValue("namespace", namespace)
            .addKeyValue("pod", name)
            .addKeyValue("decision", decision)
            .log("pod reconciled")
        val context = RunContext(pod, runName, deploymentName ?: "", plan, deadline, restarts)
        return act(decision, context, cachedRun)
    }

    private fun act(
        decision: GateDecision,
        ctx: RunContext,
        cachedRun: WarmupRun?,
    ): Duration? {
        val pod = ctx.pod
        val podKey = "${pod.metadata.namespace}/${pod.metadata.name}"
        val runKey = "${pod.metadata.namespace}/${ctx.runName}"
        pool.cancelPod(podKey, keep = runKey)
        when (decision) {
            GateDecision.IGNORE -> {
                pool.cancelPod(podKey)
            }

            GateDecision.WAIT, GateDecision.DONE -> {
                Unit
            }

            GateDecision.RELEASE -> {
                pool.cancelPod(podKey)
                gate.write(pod, GateCondition(true, Keys.GateReasons.WARMUP_DISABLED, DISABLED_MESSAGE))
            }

            GateDecision.RESET_AFTER_RESTART -> {
                gate.write(
                    pod,
                    GateCondition(
                        false,
                        Keys.GateReasons.CONTAINER_RESTARTED,
                        "restart count ${ctx.restarts}: warming again",
                    ),
                )
            }

            GateDecision.PUBLISH_RESULT -> {
                recorder.publish(pod, ctx.runName, cachedRun)
            }

            GateDecision.IN_PROGRESS -> {
                return untilDeadline(ctx.deadline)
            }

            GateDecision.FAIL_INVALID_CONFIG -> {
                fail(ctx, cachedRun, Keys.RunConditions.REASON_INVALID_CONFIG, ctx.plan.problems.joinToString("; "))
            }

            GateDecision.FAIL_TIMEOUT -> {
                fail(ctx, cachedRun, Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
            }

            GateDecision.START -> {
                return start(ctx, cachedRun)
            }
        }
        return null
    }

    private fun start(
        ctx: RunContext,
        cachedRun: WarmupRun?,
    ): Duration? {
        val pod = ctx.pod
        val plan = ctx.plan.plan ?: return null
        val status =
            baseStatus(ctx, WarmupRun.PHASE_PENDING).apply {
                target = "http://${pod.status.podIP}:${plan.port}"
            }
        val readyAt = readySeen["${pod.metadata.namespace}/${pod.metadata.name}/${ctx.restarts}"] ?: Instant.now()
        // the record first, so the job's status writes always find it; the run shows Pending while queued
        if (cachedRun == null) {
            runs.create(pod, ctx.runName, specOf(ctx), status)
        } else {
            recorder.progress(pod.metadata.namespace, ctx.runName, status)
        }
        val runKey = "${pod.metadata.namespace}/${ctx.runName}"
        val accepted =
            pool.submit(runKey, "${pod.metadata.namespace}/${pod.metadata.name}") { task ->
                job.run(task, WarmupJob.Input(pod, ctx.runName, ctx.deployment, plan, ctx.deadline, readyAt, status))
            }
        if (!accepted) return QUEUE_FULL_RETRY
        log
            .atInfo()
            .addKeyValue("namespace", pod.metadata.namespace)
            .addKeyValue("pod", pod.metadata.name)
            .addKeyValue("run", ctx.runName)
            .addKeyValue("target", status.target)
            .log("warm-up queued")
        return untilDeadline(ctx.deadline)
    }

    private fun fail(
        ctx: RunContext,
        cachedRun: WarmupRun?,
        reason: String,
        why: String,
    ) {
        val status = baseStatus(ctx, WarmupRun.PHASE_FAILED)
        if (cachedRun == null) runs.create(ctx.pod, ctx.runName, specOf(ctx), status)
        recorder.failed(RunRef(ctx.pod, ctx.runName, ctx.deployment, ctx.plan.failurePolicy), status, reason, why)
    }

    private fun baseStatus(
        ctx: RunContext,
        phase: String,
    ) = WarmupRunStatus().apply {
        this.phase = phase
        podName = ctx.pod.metadata.name
        podIP = ctx.pod.status?.podIP
        deadline = RunRecorder.stamp(ctx.deadline)
        attempts = 0
    }

    private fun specOf(ctx: RunContext) =
        WarmupRunSpec().apply {
            podName = ctx.pod.metadata.name
            podUid = ctx.pod.metadata.uid
            deployment = ctx.deployment.ifEmpty { null }
            restartCount = ctx.restarts
            failurePolicy = ctx.plan.failurePolicy.value
            timeoutSeconds = (ctx.plan.plan?.timeout ?: DEFAULT_TIMEOUT).seconds
        }

    private fun deadlineOf(
        readySince: String?,
        run: WarmupRun?,
        plan: PlanResult,
    ): Instant {
        val from =
            readySince?.let { runCatching { Instant.parse(it) }.getOrNull() }
                ?: run?.metadata?.creationTimestamp?.let { runCatching { Instant.parse(it) }.getOrNull() }
                ?: Instant.now()
        return from.plus(plan.plan?.timeout ?: DEFAULT_TIMEOUT)
    }

    private fun untilDeadline(deadline: Instant): Duration =
        Duration.between(Instant.now(), deadline).plus(DEADLINE_SLACK).coerceAtLeast(DEADLINE_SLACK)

    private data class RunContext(
        val pod: Pod,
        val runName: String,
        val deployment: String,
        val plan: PlanResult,
        val deadline: Instant,
        val restarts: Int,
    )

    companion object {
        private const val DISABLED_MESSAGE = "warm-up disabled on the Deployment"
        private val DEFAULT_TIMEOUT: Duration = dev.danki.operator.warmup.WarmupPlan.DEFAULT_TIMEOUT

        /** Look again just after a deadline, to fail a pod that is still waiting. */
        private val DEADLINE_SLACK: Duration = Duration.ofSeconds(1)

        /** A full warm-up queue drains at k6 speed; seconds, not milliseconds. */
        private val QUEUE_FULL_RETRY: Duration = Duration.ofSeconds(5)
    }
}
