package dev.danki.operator

import dev.danki.operator.aot.AotProbe
import dev.danki.operator.aot.AotReport
import dev.danki.operator.aot.AotStore
import dev.danki.operator.aot.AotTrainer
import dev.danki.operator.aot.PodLogHead
import dev.danki.operator.aot.Training
import dev.danki.operator.aot.TrainingPodClient
import dev.danki.operator.boost.CpuBoost
import dev.danki.operator.boost.PodResize
import dev.danki.operator.config.GateInjection
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.controller.DeploymentReconciler
import dev.danki.operator.controller.PodReconciler
import dev.danki.operator.controller.RunActions
import dev.danki.operator.controller.RunRecorder
import dev.danki.operator.controller.WarmupCompletions
import dev.danki.operator.controller.WarmupJob
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.NodeShapes
import dev.danki.operator.kube.PodEviction
import dev.danki.operator.kube.PrunedPods
import dev.danki.operator.kube.RunStore
import dev.danki.operator.leader.LeaderElection
import dev.danki.operator.leader.Leadership
import dev.danki.operator.metrics.BoostMetrics
import dev.danki.operator.metrics.GatedPods
import dev.danki.operator.metrics.HttpEndpoints
import dev.danki.operator.metrics.PoolGauges
import dev.danki.operator.metrics.ReconcileMetrics
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.runner.RunnerPodSpec
import dev.danki.operator.runner.RunnerPods
import dev.danki.operator.warmup.FairShare
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.NodeCaps
import dev.danki.operator.warmup.NodeCpuCaps
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPool
import dev.danki.operator.warmup.WarmupPools
import dev.danki.operator.webhook.BoostAdmission
import dev.danki.operator.webhook.MissedGates
import dev.danki.operator.webhook.OptInReads
import dev.danki.operator.webhook.UnlabeledPods
import dev.danki.operator.webhook.Webhook
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider
import io.javaoperatorsdk.operator.processing.retry.GenericRetry
import java.nio.file.Files
import java.time.Duration
import java.time.Instant

/**
 * The operator's parts, wired for one client: JOSDK's operator with the pod and Deployment reconcilers
 * (their informers are the [caches] every other part reads), the warm-up pool and the HTTP port.
 * [start] serves HTTP, starts the informers on every replica, and reconciling once this replica leads.
 */
class Operator(
    private val config: OperatorConfig,
    client: KubernetesClient,
    private val metrics: WarmupMetrics = WarmupMetrics(),
    /** Called when leadership, once won, is lost (not when [stop] gives it up). */
    onLost: () -> Unit = {},
) {
    val caches = Caches(namespaceOptIn = config.webhook != null, aot = config.aot != null)
    private val gauges = PoolGauges(metrics::poolChanged)
    private val pool =
        WarmupPools(
            local = poolOf(config, config.concurrency, gauges::local),
            runners = config.runnerImage?.let { poolOf(config, config.runnerConcurrency, gauges::runners) },
        )

    /** Reads each Deployment's warm-up plan; a custom flow needs the runner pods, which the runner image gives. */
    private val parser =
        PlanParser(
            config.defaultFailurePolicy,
            runnerEnabled = config.runnerImage != null,
            cpuBoostByDefault = config.cpuBoost && config.cpuBoostByDefault,
        )

    /** The nodes whose allocatable CPU caps the default boost; only read for it. */
    private val nodeShapes = if (config.cpuBoost && config.cpuBoostByDefault) NodeShapes(client) else null
    private val nodes: () -> Collection<Node> = { nodeShapes?.all().orEmpty() }

    // with the boost allowed, the webhook raises it at admission; the resize while gated is the fallback
    val webhook =
        config.webhook?.let {
            val boost = if (config.cpuBoost) BoostAdmission(parser, config.cpuBoostActiveProcessors, nodes) else null
            Webhook(it, client, caches, metrics, config.runnerImage, config.identity, boost)
        }
    val http = HttpEndpoints(config.httpPort, metrics, ::problem) { caches.hasSynced() && webhook?.ready() != false }
    private val history = RunHistory(client, config.historyRetention) { ns, name -> caches.deployments.get(ns, name) }
    private val completions = WarmupCompletions()
    private val election = LeaderElection(client, config)
    private val pods: PodReconciler
    private val trainer: AotTrainer?
    private val sdk: io.javaoperatorsdk.operator.Operator

    /** Whether this replica leads: every write of the leader's own is refused once it lost the Lease. */
    private val leadership = Leadership()

    init {
        metrics.leading(false)
        metrics.watchGatedPods(
            gated = { if (leadership.leading) GatedPods.count(caches.pods.list(), ::runsOf) else emptyMap() },
            overdue = {
                if (leadership.leading) {
                    GatedPods.overdue(
                        caches.pods.list(),
                        ::runsOf,
                        Instant.now(),
                    )
                } else {
                    emptyMap()
                }
            },
        )
        val events = EventRecorder(client, config.identity)
        val runs = RunStore(client, leadership)
        val gate = PodGate(client, leadership, metrics::gatePatched)
        val recorder = RunRecorder(runs, gate, events, metrics, caches, history)
        val runner = K6Runner(config.k6Binary, config.k6Script, Files.createTempDirectory("danki-k6"))
        val runnerPods =
            config.runnerImage?.let { image ->
                val resources =
                    config.runnerResources?.let { RunnerPodSpec.resourcesOf(it) } ?: RunnerPodSpec.DEFAULT_RESOURCES
                RunnerPods(client, leadership, image, resources)
            }
        // the first bytes of a pod's log: a training JVM that would not start, a pod's JVM that refused its cache
        val podLogs = PodLogHead(client)
        trainer =
            config.aot?.let { settings ->
                val store =
                    AotStore(client, settings, checkNotNull(caches.aotClaims) { "aot caches come with their claims" })
                val image = checkNotNull(config.runnerImage) { "ConfigLoader: aot needs the runner image" }
                val training =
                    Training(
                        TrainingPodClient(client, leadership),
                        podLogs,
                        store,
                        settings,
                        events,
                        image,
                        config.maxErrorRatio,
                        WarmupAttempts(runner),
                        runnerPods?.let { WarmupAttempts(it) },
                    )
                AotTrainer(store, training, parser, events) { ns, name -> caches.deployments.get(ns, name) }
            }
        val aotReport = trainer?.let { AotReport(AotProbe(podLogs), events, it) }
        val boosts =
            CpuBoost(
                PodResize(client, leadership),
                events,
                config.cpuBoost,
                BoostMetrics(metrics.registry)::ended,
                nodes,
            )
        val job =
            WarmupJob(
                config,
                WarmupAttempts(runner),
                runnerPods?.let { WarmupAttempts(it) },
                recorder,
                events,
                boosts,
                aotReport,
            )
        val missedGates =
            webhook?.let {
                MissedGates(
                    caches,
                    events,
                    metrics,
                    PodEviction(client, leadership)::evict,
                    config.ungatedPods,
                    it.endpoints::ready,
                )
            }
        val deployments =
            DeploymentReconciler(
                TemplateGate(client, leadership),
                events,
                metrics,
                parser,
                patchTemplate = config.gateInjection == GateInjection.TEMPLATE,
                // template mode takes its own gates off; webhook mode only when the chart granted it
                stripTemplateGates = config.webhook?.stripTemplateGates ?: true,
                namespaceOptIn = config.webhook != null,
                aot = trainer,
                caches = caches,
                unlabeledPods = missedGates?.let { UnlabeledPods(client, it, caches::podsOf) },
            )
        val nodeCaps =
            config.nodeConcurrency?.let { NodeCaps.fixed(it) }
                ?: NodeCpuCaps.reading(client)
        val actions = RunActions(runs, gate, recorder, pool, job, nodeCaps, boosts)
        pods =
            PodReconciler(
                config,
                caches,
                parser,
                recorder,
                pool,
                actions,
                completions,
                OptInReads.api(client)::deployment,
            )
        // the fence closes on the election's own thread, before anything else hears of the loss
        val leaderElection =
            election.configuration(onLeading = ::lead) {
                leadership.lost()
                onLost()
            }
        sdk =
            io.javaoperatorsdk.operator.Operator { o ->
                o
                    .withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withConcurrentReconciliationThreads(config.reconcileWorkers)
                    // an informer that cannot list (a missing CRD) is retried; /healthz reports it meanwhile
                    .withStopOnInformerErrorDuringStartup(false)
                    .withCacheSyncTimeout(CACHE_SYNC_TIMEOUT)
                    .withInformerStoppedHandler(caches::informerStopped)
                    .withMetrics(ReconcileMetrics.into(metrics.registry))
                leaderElection?.let { o.withLeaderElectionConfiguration(it) }
            }
        sdk.register(pods) { o ->
            watching(o)
            o.withRetry(RETRY)
            // danki's pods only: the cache's size follows them, not the cluster's pods
            o.withLabelSelector(Keys.POD_CACHE_SELECTOR)
            // and each without its managedFields; a store of its own needs a single informer
            if (config.watchNamespaces.isEmpty()) o.withItemStore(PrunedPods())
            o.withGenericFilter(PodReconciler::wants)
        }
        sdk.register(deployments) { o ->
            watching(o)
            o.withRetry(RETRY)
        }
    }

    /**
     * Serves HTTP and starts the informers; returns once they have synced (or [CACHE_SYNC_TIMEOUT] passed).
     * Without leader election this replica reconciles at once, with it once it wins the Lease.
     */
    fun start() {
        http.start()
        webhook?.start()
        if (!config.leaderElection) lead(Instant.now())
        sdk.start()
    }

    /** This replica leads, since [since] (its Lease's acquireTime): called before JOSDK starts its reconciles. */
    private fun lead(since: Instant) {
        leadership.acquired()
        metrics.leading(true)
        pods.startActing(since)
    }

    /** What keeps this replica from working, for `/healthz`: an informer (of either controller) that fails. */
    fun problem(): String? =
        caches.problem(
            sdk.runtimeInfo
                .takeIf { it.isStarted }
                ?.unhealthyInformerWrappingEventSourceHealthIndicator()
                .orEmpty(),
        )

    /**
     * Leadership lost: acting stops at once (a former leader must not act on stale beliefs), then the
     * webhook keeps admitting pods until the Service has let this replica go; the caller then exits.
     */
    fun abdicate() {
        stopActing()
        webhook?.drain(LOST_DRAIN)
    }

    /**
     * Stops everything; every k6 process is killed before this returns, the webhook is drained, and the
     * Lease is given up.
     */
    fun stop() {
        stopActing()
        webhook?.drain(SHUTDOWN_DRAIN)
        history.close()
        webhook?.stop()
        nodeShapes?.close()
        http.stop()
        // deletes the Lease unless another replica took it meanwhile
        election.stop()
    }

    /**
     * Writes are refused from the first line on; then JOSDK stops taking reconciles, and only then the
     * pool kills the warm-ups (which can take seconds) and the trainer stops.
     */
    private fun stopActing() {
        leadership.lost()
        metrics.leading(false)
        sdk.stop()
        pool.shutdownNow()
        trainer?.stop()
    }

    private fun runsOf(pod: Pod) = caches.runsOf(pod.metadata.namespace, pod.metadata.name)

    private fun <R : HasMetadata> watching(o: ControllerConfigurationOverrider<R>) {
        if (config.watchNamespaces.isEmpty()) {
            o.watchingAllNamespaces()
        } else {
            o.settingNamespaces(
                config.watchNamespaces.toSet(),
            )
        }
    }

    private fun poolOf(config: OperatorConfig, slots: Int, gauge: (Int, Int) -> Unit) =
        WarmupPool(
            slots,
            config.queueCapacity,
            gauge,
            FairShare.of(slots, config.deploymentShare, config.namespaceShare),
        ) { task, crash -> completions.finished(task.podKey, crash) }

    private companion object {
        /**
         * A replica that lost its Lease waits this long at most for its readiness probe to fail and
         * the Service to drop it: the chart's probe fails after 3 x 5 s, and the endpoints follow.
         */
        val LOST_DRAIN: Duration = Duration.ofSeconds(30)

        /** On SIGTERM the pod is terminating, which takes it out of the Service at once; its grace is 30 s. */
        val SHUTDOWN_DRAIN: Duration = Duration.ofSeconds(5)

        /**
         * A failed reconcile is retried for as long as its object exists (giving up on a pod would leave
         * it gated): 200 ms, doubling, capped at 30 s.
         */
        val RETRY: GenericRetry =
            GenericRetry()
                .setInitialInterval(Duration.ofMillis(200))
                .setIntervalMultiplier(2.0)
                .setMaxInterval(Duration.ofSeconds(30).toMillis())
                .withoutMaxAttempts()

        /** How long start-up waits for the informers before going on without them (and reporting them). */
        val CACHE_SYNC_TIMEOUT: Duration = Duration.ofSeconds(30)
    }
}
