package dev.danki.operator

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.controller.Controller
import dev.danki.operator.controller.DeploymentReconciler
import dev.danki.operator.controller.PodReconciler
import dev.danki.operator.controller.RunRecorder
import dev.danki.operator.controller.WarmupJob
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.RunStore
import dev.danki.operator.metrics.HttpEndpoints
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPool
import io.fabric8.kubernetes.client.KubernetesClient
import java.nio.file.Files

/**
 * The operator's parts, wired for one client: caches, queue, reconcilers, warm-up pool and the HTTP
 * port. [watch] starts watching (every replica); [lead] starts acting (the leader only).
 */
class Operator(
    config: OperatorConfig,
    client: KubernetesClient,
    metrics: WarmupMetrics = WarmupMetrics(),
) {
    val caches = Caches(client, config.watchNamespaces)
    private val controller = Controller(caches, config.reconcileWorkers)
    private val pool = WarmupPool(config.concurrency, config.queueCapacity, metrics::poolChanged)
    val http = HttpEndpoints(config.httpPort, metrics) { caches.hasSynced() }

    init {
        val events = EventRecorder(client, config.identity)
        val runs = RunStore(client)
        val recorder = RunRecorder(runs, PodGate(client), events, metrics, caches)
        val runner = K6Runner(config.k6Binary, config.k6Script, Files.createTempDirectory("danki-k6"))
        val job = WarmupJob(config, WarmupAttempts(runner), recorder, events, controller::enqueuePod)
        controller.deployments =
            DeploymentReconciler(
                caches,
                TemplateGate(client),
                events,
                metrics,
                PlanParser(config.defaultFailurePolicy),
                controller::enqueuePod,
            )
        controller.pods = PodReconciler(config, caches, runs, PodGate(client), recorder, pool, job)
    }

    /** Serves HTTP and fills the caches. */
    fun watch() {
        http.start()
        controller.watch()
        caches.start()
    }

    /** Starts reconciling: call once this replica leads. */
    fun lead() = controller.start()

    /** Stops everything; every k6 process is killed before this returns. */
    fun stop() {
        controller.stop()
        pool.shutdownNow()
        caches.stop()
        http.stop()
    }
}
