package dev.danki.operator

import dev.danki.operator.config.GateInjection
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.controller.Controller
import dev.danki.operator.controller.DeploymentReconciler
import dev.danki.operator.controller.PodReconciler
import dev.danki.operator.controller.RunActions
import dev.danki.operator.controller.RunRecorder
import dev.danki.operator.controller.WarmupJob
import dev.danki.operator.controller.WorkItem
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.RunStore
import dev.danki.operator.metrics.GatedPods
import dev.danki.operator.metrics.HttpEndpoints
import dev.danki.operator.metrics.PoolGauges
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
import dev.danki.operator.warmup.WarmupTask
import dev.danki.operator.webhook.MissedGates
import dev.danki.operator.webhook.Webhook
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import java.nio.file.Files
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CompletableFuture

/**
 * The operator's parts, wired for one client: caches, queue, reconcilers, warm-up pool and the HTTP
 * port. [watch] starts watching (every replica); [lead] starts acting (the leader only) once the
 * caches have synced.
 */
class Operator(
    config: OperatorConfig,
    client: KubernetesClient,
    private val metrics: WarmupMetrics = WarmupMetrics(),
) {
    val caches = Caches(client, config.watchNamespaces, namespaceOptIn = config.webhook != null)
    private val controller = Controller(config.reconcileWorkers, ::reconcile, ::exists)
    private val gauges = PoolGauges(metrics::poolChanged)
    private val pool =
        WarmupPools(
            local = poolOf(config, config.concurrency, gauges::local),
            runners = config.runnerImage?.let { poolOf(config, config.runnerConcurrency, gauges::runners) },
        )
    val webhook = config.webhook?.let { Webhook(it, client, caches, metrics) }
    val http = HttpEndpoints(config.httpPort, metrics, ::problem) { caches.hasSynced() && webhook?.ready() != false }
    private val history = RunHistory(client, config.historyRetention) { ns, name -> caches.deployments.get(ns, name) }
    private val missedGates =
        config.webhook?.let { MissedGates(caches, EventRecorder(client, config.identity), metrics) }
    private val deployments: DeploymentReconciler
    private val pods: PodReconciler
    private var synced: CompletableFuture<Void>? = null

    @Volatile private var leading = false

    init {
        metrics.leading(false)
        metrics.watchGatedPods(
            gated = { if (leading) GatedPods.count(caches.pods.list(), ::runsOf) else emptyMap() },
            overdue = { if (leading) GatedPods.overdue(caches.pods.list(), ::runsOf, Instant.now()) else emptyMap() },
        )
        val events = EventRecorder(client, config.identity)
        val runs = RunStore(client)
        val gate = PodGate(client, metrics::gatePatched)
        val recorder = RunRecorder(runs, gate, events, metrics, caches, history)
        val runner = K6Runner(config.k6Binary, config.k6Script, Files.createTempDirectory("danki-k6"))
        val runnerPods =
            config.runnerImage?.let { image ->
                val resources =
                    config.runnerResources?.let { RunnerPodSpec.resourcesOf(it) } ?: RunnerPodSpec.DEFAULT_RESOURCES
                RunnerPods(client, caches.pods, image, resources)
            }
        val job = WarmupJob(config, WarmupAttempts(runner), runnerPods?.let { WarmupAttempts(it) }, recorder, events)
        val parser = PlanParser(config.defaultFailurePolicy, runnerEnabled = runnerPods != null)
        val template = TemplateGate(client)
        val patchTemplate = config.gateInjection == GateInjection.TEMPLATE
        deployments =
            DeploymentReconciler(caches, template, events, metrics, parser, patchTemplate, controller::enqueuePod)
        val nodeCaps =
            config.nodeConcurrency?.let { NodeCaps.fixed(it) }
                ?: NodeCpuCaps.reading(client)
        val actions = RunActions(runs, gate, recorder, pool, job, nodeCaps)
        pods =
            PodReconciler(config, caches, parser, recorder, pool, actions) { namespace, name ->
                client
                    .apps()
                    .deployments()
                    .inNamespace(namespace)
                    .withName(name)
                    .get()
            }
    }

    /** Serves HTTP and fills the caches. */
    fun watch() {
        http.start()
        webhook?.start()
        controller.watch(caches)
        missedGates?.watch()
        synced = caches.start()
    }

    /** Starts reconciling once the caches have synced: call once this replica leads, after [watch]. */
    fun lead() {
        leading = true
        metrics.leading(true)
        pods.startActing()
        val whenSynced = checkNotNull(synced) { "watch() first" }
        controller.startWhen(whenSynced)
        missedGates?.let { gates -> whenSynced.thenRun { gates.lead() } }
    }

    /** What keeps this replica from working, for `/healthz`: a stopped informer, an ended worker. */
    fun problem(): String? = caches.problem() ?: controller.problem()

    /** Stops everything; every k6 process is killed before this returns. */
    fun stop() {
        controller.stop()
        pool.shutdownNow()
        history.close()
        caches.stop()
        webhook?.stop()
        http.stop()
    }

    private fun runsOf(pod: Pod) = caches.runsOf(pod.metadata.namespace, pod.metadata.name)

    private fun reconcile(item: WorkItem): Duration? =
        when (item.kind) {
            WorkItem.Kind.DEPLOYMENT -> null.also { deployments.reconcile(item.namespace, item.name) }
            WorkItem.Kind.POD -> pods.reconcile(item.namespace, item.name)
        }

    private fun exists(item: WorkItem): Boolean =
        when (item.kind) {
            WorkItem.Kind.DEPLOYMENT -> caches.deployments.get(item.namespace, item.name) != null
            WorkItem.Kind.POD -> caches.pods.get(item.namespace, item.name) != null
        }

    private fun poolOf(config: OperatorConfig, slots: Int, gauge: (Int, Int) -> Unit) =
        WarmupPool(
            slots,
            config.queueCapacity,
            gauge,
            FairShare.of(slots, config.deploymentShare, config.namespaceShare),
            ::warmupFinished,
        )

    /** The pool forgot the task before calling: the next reconcile of the pod sees its warm-up over. */
    private fun warmupFinished(task: WarmupTask, crash: Exception?) {
        val (namespace, name) = task.podKey.split('/', limit = 2)
        if (crash == null) controller.enqueuePod(namespace, name) else controller.requeuePodLater(namespace, name)
    }
}
