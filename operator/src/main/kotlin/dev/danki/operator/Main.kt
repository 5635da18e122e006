package dev.danki.operator

import dev.danki.operator.config.ConfigException
import dev.danki.operator.config.ConfigLoader
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
import dev.danki.operator.kube.LeaderElection
import dev.danki.operator.kube.RunStore
import dev.danki.operator.metrics.HttpEndpoints
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPool
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import org.slf4j.LoggerFactory
import java.nio.file.Files
import kotlin.system.exitProcess

/** Wiring only: read the config (exit 2 on bad config), build the parts, run until stopped. */
fun main() {
    val config =
        try {
            ConfigLoader(System.getenv()).load()
        } catch (e: ConfigException) {
            System.err.println(e.message)
            exitProcess(2)
        }
    run(config)
}

private fun run(config: OperatorConfig) {
    val log = LoggerFactory.getLogger("dev.danki.operator.Main")
    val client = KubernetesClientBuilder().build()
    val metrics = WarmupMetrics().withJvmMetrics()
    val caches = Caches(client, config.watchNamespaces)
    val events = EventRecorder(client, config.identity)
    val runs = RunStore(client)
    val recorder = RunRecorder(runs, PodGate(client), events, metrics, caches)
    val pool = WarmupPool(config.concurrency, config.queueCapacity, metrics::poolChanged)
    val controller = Controller(caches, config.reconcileWorkers)
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
    val http = HttpEndpoints(config.httpPort, metrics) { caches.hasSynced() }
    val election = LeaderElection(client, config)

    Runtime.getRuntime().addShutdownHook(
        Thread {
            log.info("shutting down")
            controller.stop()
            pool.shutdownNow()
            election.stop()
            caches.stop()
            http.stop()
            client.close()
        },
    )
    http.start()
    controller.watch()
    caches.start()
    log
        .atInfo()
        .addKeyValue("namespaces", config.watchNamespaces.ifEmpty { listOf("*") })
        .addKeyValue("concurrency", config.concurrency)
        .addKeyValue("httpPort", http.port)
        .addKeyValue("identity", config.identity)
        .log("operator started")
    election.run(
        onLeading = {
            log.atInfo().addKeyValue("identity", config.identity).log("leading: reconciling")
            controller.start()
        },
        onLost = {
            // a former leader must not act on stale beliefs: exit, and let the restart rejoin as follower
            log.atWarn().addKeyValue("identity", config.identity).log("leadership lost: exiting")
            exitProcess(1)
        },
    )
}
