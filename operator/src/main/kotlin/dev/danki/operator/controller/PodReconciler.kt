package dev.danki.operator.controller

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.gate.GateDecision
import dev.danki.operator.gate.PodFacts
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.PlanResult
import dev.danki.operator.warmup.WarmupPlan
import dev.danki.operator.warmup.WarmupPools
import dev.danki.operator.warmup.WarmupSwitch
import dev.danki.operator.warmup.WarmupTarget
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.javaoperatorsdk.operator.api.reconciler.Context
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext
import io.javaoperatorsdk.operator.api.reconciler.Reconciler
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl
import io.javaoperatorsdk.operator.processing.event.source.EventSource
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * Decides, for one gated pod, what happens next ([GateDecision]) and has [RunActions] do it: start a
 * warm-up, publish a finished one, release an opted-out pod, or fail a pod whose config is invalid or
 * whose timeout passed. It exists so that no pod carrying the gate is left without a decision.
 *
 * A JOSDK reconciler of Pods: it is called for gated pods (the pod cache holds only pods labelled
 * `danki.dev/warmup`, which every gated pod is; the Deployment reconciler finds those the webhook
 * missed), for deleted ones, and for the pods its secondary sources point at ([Caches]: their
 * Deployment, their WarmupRuns, their namespace) and its warm-ups that ended ([WarmupCompletions]).
 */
@ControllerConfiguration(
    name = PodReconciler.NAME,
    // a pod's status (containers ready) moves without its generation
    generationAwareEventProcessing = false,
    // a deleted pod's warm-up is cancelled by the reconcile that sees it gone
    triggerReconcilerOnAllEvents = true,
)
class PodReconciler(
    private val config: OperatorConfig,
    private val caches: Caches,
    private val parser: PlanParser,
    private val recorder: RunRecorder,
    private val pool: WarmupPools,
    private val actions: RunActions,
    private val completions: WarmupCompletions,
    /** The Deployment as the API server has it now, read past the cache (null: gone). */
    private val deploymentNow: (namespace: String, name: String) -> Deployment?,
) : Reconciler<Pod> {
    private val log = LoggerFactory.getLogger(PodReconciler::class.java)
    private val optOut = OptOutRelease(actions, deploymentNow) { wanted(it, it?.metadata?.namespace.orEmpty()) }

    /** When this process first saw each pod's containers ready: the start of the reaction time. */
    private val readySeen = ConcurrentHashMap<String, Instant>()

    /**
     * When this replica began to act: its Lease's `acquireTime` (LeaderElection), which every replica
     * reads alike and which does not change while it leads. A pod's timeout counts from here at the
     * earliest: the time no danki was there to warm it is not the warm-up's, so a pod that waited through
     * an operator outage is warmed when danki is back instead of failing `Timeout` on its return.
     */
    @Volatile private var actingSince: Instant = Instant.EPOCH

    fun startActing(since: Instant) {
        actingSince = since
    }

    override fun prepareEventSources(context: EventSourceContext<Pod>): List<EventSource<*, Pod>> =
        caches.eventSources(context) + completions

    override fun reconcile(resource: Pod, context: Context<Pod>): UpdateControl<Pod> {
        if (!context.isPrimaryResourceDeleted && !PodGate.hasGate(resource)) {
            // an ungated pod is never warmed (GateDecision: IGNORE); a labelled one without the gate is
            // a tenant's label, so it costs one look, not a plan parsed per status change
            pool.cancelPod(ObjectKeys.of(resource))
            return UpdateControl.noUpdate()
        }
        val again = handle(resource.metadata.namespace, resource.metadata.name)
        return UpdateControl.noUpdate<Pod>().apply { again?.let { rescheduleAfter(it) } }
    }

    /** Handles one gated pod as the cache has it; returns when to look again, or null when only an event can. */
    private fun handle(namespace: String, name: String): Duration? {
        val pod = caches.pods.get(namespace, name) ?: return forget(ObjectKeys.of(namespace, name))
        val deploymentName = PodOwners.deploymentOf(pod)
        val deployment = deploymentName?.let { caches.deployments.get(namespace, it) }
        if (deploymentName != null && deployment == null && ownerMayBeComing(pod)) {
            // The Deployments' informer is behind the pods' (many created at once): deciding now would
            // warm with the default plan, blind to the Deployment's own annotations (an invalid one
            // was warmed). Its event brings the pod back; this is the backstop.
            return OWNER_CACHE_RETRY
        }
        val ctx = contextOf(pod, deploymentName ?: "", deployment)
        val decision = GateDecision.decide(factsOf(ctx, deployment))
        log
            .atDebug()
            .addKeyValue("namespace", namespace)
            .addKeyValue("pod", name)
            .addKeyValue("decision", decision)
            .log("pod reconciled")
        return act(decision, ctx)
    }

    private fun forget(podKey: String): Duration? {
        pool.cancelPod(podKey)
        optOut.forget(podKey)
        completions.forget(podKey)
        readySeen.keys.removeIf { it.startsWith("$podKey/") }
        return null
    }

    private fun contextOf(pod: Pod, deploymentName: String, deployment: Deployment?): RunContext {
        val restarts = PodGate.restartCount(pod)
        val runName = RunStore.runName(pod.metadata.name, restarts)
        val annotations = deployment?.metadata?.annotations.orEmpty()
        val plan = parser.parse(annotations, pod.spec)
        val cachedRun = runsOf(pod).firstOrNull { it.metadata.name == runName }
        val ready = PodGate.containersReady(pod)
        val podKey = ObjectKeys.of(pod)
        if (ready != null) readySeen.putIfAbsent("$podKey/$restarts", Instant.now())
        val digest = RunRetry.configDigest(annotations)
        val rewarm = pod.metadata.annotations?.get(Keys.Annotations.REWARM)
        // this process's final result is ahead of the cache: judge a retry on it when there is one
        val latestStatus = recorder.finalStatus(ObjectKeys.of(pod.metadata.namespace, runName)) ?: cachedRun?.status
        val retry = RunRetry.of(latestStatus, cachedRun?.spec?.failurePolicy, runName, rewarm, digest)
        val retryFrom = if (retry.cause != null) Instant.now() else RunStatuses.instantOf(latestStatus?.retryTime)
        val deadline = deadlineOf(ready?.lastTransitionTime, cachedRun, plan, retryFrom)
        val runInfo = RunContext.Retry(retry, digest, RunRetry.rewarmToken(rewarm), latestStatus)
        return RunContext(pod, runName, deploymentName, plan, deadline, restarts, cachedRun, runInfo)
    }

    private fun runsOf(pod: Pod): List<WarmupRun> =
        caches.runsOf(pod.metadata.namespace, pod.metadata.name).filter { it.spec?.podUid == pod.metadata.uid }

    private fun factsOf(ctx: RunContext, deployment: Deployment?): PodFacts {
        val pod = ctx.pod
        return PodFacts(
            hasGate = PodGate.hasGate(pod),
            deleting = pod.metadata.deletionTimestamp != null,
            wanted = wanted(deployment, pod.metadata.namespace),
            containersReady = PodGate.containersReady(pod) != null,
            hasPodIP = !pod.status?.podIP.isNullOrEmpty(),
            gateTrue = PodGate.conditionOf(pod)?.let { it.status == "True" },
            runPhase = recorder.finalStatus(ctx.runKey)?.phase ?: ctx.cachedRun?.status?.phase,
            olderRunExists = runsOf(pod).any { (it.spec?.restartCount ?: 0) < ctx.restarts },
            runningHere = pool.isRunning(ctx.runKey),
            queuedHere = pool.isQueued(ctx.runKey),
            invalidConfig = ctx.plan.problems.isNotEmpty(),
            targetRefused = WarmupTarget.refusal(pod, config.allowHostNetwork) != null,
            deadlinePassed = Instant.now().isAfter(ctx.deadline),
            retryAsked = ctx.retry.asked,
        )
    }

    /**
     * An explicit `disabled` always wins; without the annotation, an opted-in namespace or a gate the
     * user wrote asks for warm-up.
     */
    private fun wanted(deployment: Deployment?, namespace: String): Boolean =
        when (WarmupSwitch.of(deployment, caches.namespaceLabels(namespace))) {
            WarmupSwitch.ENABLED, WarmupSwitch.INVALID -> true
            WarmupSwitch.DISABLED -> false
            WarmupSwitch.ABSENT -> deployment == null || TemplateGate.hasUserGate(deployment)
        }

    /**
     * Does what [decision] says, and returns when to look again: every decision is a branch of its own.
     * Those that write once (or nothing) and then wait for the next event look again only when a failed
     * run is due to be tried again ([RunRetry]).
     */
    private fun act(decision: GateDecision, ctx: RunContext): Duration? {
        endEarlierRuns(decision, ctx)
        val retryDue = ctx.retry.check.dueIn
        return when (decision) {
            GateDecision.IN_PROGRESS -> {
                RunActions.untilDeadline(ctx.deadline)
            }

            GateDecision.FAIL_TIMEOUT -> {
                actions.failTimeout(ctx)
            }

            GateDecision.START -> {
                start(ctx)
            }

            GateDecision.RELEASE -> {
                optOut.release(ctx)
            }

            GateDecision.WAIT -> {
                retryDue
            }

            GateDecision.IGNORE -> {
                pool.cancelPod(ctx.podKey)
                retryDue
            }

            GateDecision.DONE -> {
                syncDone(ctx)
                retryDue
            }

            GateDecision.RESET_AFTER_RESTART -> {
                actions.resetAfterRestart(ctx)
                retryDue
            }

            GateDecision.PUBLISH_RESULT -> {
                recorder.publish(ctx.pod, ctx.runName, ctx.cachedRun)
                retryDue
            }

            GateDecision.FAIL_INVALID_CONFIG -> {
                actions.fail(ctx, Keys.RunConditions.REASON_INVALID_CONFIG, ctx.plan.problems.joinToString("; "))
                retryDue
            }

            GateDecision.FAIL_TARGET_REFUSED -> {
                val refusal = WarmupTarget.refusal(ctx.pod, config.allowHostNetwork) ?: "target refused"
                actions.fail(ctx, Keys.RunConditions.REASON_TARGET_REFUSED, refusal)
                retryDue
            }
        }
    }

    /** Starts the warm-up, unless the pod's last one crashed and its back-off is not over. */
    private fun start(ctx: RunContext): Duration? =
        completions.backoff(ctx.podKey)?.let { minOf(it, RunActions.untilDeadline(ctx.deadline)) }
            ?: actions.start(ctx, readySeen["${ctx.podKey}/${ctx.restarts}"] ?: Instant.now())

    /** Before any decision: the runs of earlier restart counts end, and an opt-out in progress is forgotten. */
    private fun endEarlierRuns(decision: GateDecision, ctx: RunContext) {
        // a run of an earlier restart count has nothing left to do, and its record says so
        val startedHere = pool.cancelPod(ctx.podKey, keep = ctx.runKey)
        if (decision != GateDecision.IGNORE) actions.supersede(ctx, runsOf(ctx.pod), startedHere)
        // "off" must hold in a row: any other decision means the Deployment said "on" meanwhile
        if (decision != GateDecision.RELEASE) optOut.forget(ctx.podKey)
    }

    /**
     * A decided pod's record shows its result: this process's, or, when the gate was decided by a
     * leader that stopped before writing the record (its Lease lost mid-write), the gate's own.
     */
    private fun syncDone(ctx: RunContext) {
        if (recorder.syncRecord(ctx.pod, ctx.runName, ctx.cachedRun)) return
        val run = ctx.cachedRun ?: return
        val busy = pool.isRunning(ctx.runKey) || pool.isQueued(ctx.runKey)
        if (run.status?.phase in RunActions.OPEN_PHASES && !busy) {
            PodGate.conditionOf(ctx.pod)?.let { actions.closeFromGate(ctx.pod, run, it) }
        }
    }

    /** ContainersReady plus the timeout, counted from this replica's start of acting or a retry when later. */
    private fun deadlineOf(readySince: String?, run: WarmupRun?, plan: PlanResult, retryFrom: Instant?): Instant {
        val ready =
            RunStatuses.instantOf(readySince)
                ?: RunStatuses.instantOf(run?.metadata?.creationTimestamp)
                ?: Instant.now()
        val from = listOfNotNull(ready, actingSince, retryFrom).max()
        return from.plus(plan.plan?.timeout ?: WarmupPlan.DEFAULT_TIMEOUT)
    }

    companion object {
        const val NAME = "pods"

        /** How long a pod waits for its Deployment to reach the cache before it is decided without it. */
        val OWNER_CACHE_GRACE: Duration = Duration.ofSeconds(30)
        private val OWNER_CACHE_RETRY: Duration = Duration.ofSeconds(1)

        /** A pod this young may have a Deployment the cache has not seen yet; an older one's is gone. */
        private fun ownerMayBeComing(pod: Pod): Boolean {
            val created = RunStatuses.instantOf(pod.metadata?.creationTimestamp) ?: return true
            return Duration.between(created, Instant.now()) < OWNER_CACHE_GRACE
        }

        /** The pods this reconciler is called for, of those its cache holds: gated ones. */
        fun wants(pod: Pod): Boolean = PodGate.hasGate(pod)
    }
}
