package dev.danki.operator

import dev.danki.operator.config.ConfigException
import dev.danki.operator.config.ConfigLoader
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.ConfigBuilder
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import org.slf4j.LoggerFactory
import java.util.concurrent.atomic.AtomicBoolean
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
    // before the first logger: logback picks its appender from these, spelled as logback.xml names them
    LogSettings.apply(config)
    run(config)
}

private fun run(config: OperatorConfig) {
    val log = LoggerFactory.getLogger("dev.danki.operator.Main")
    // HTTP/1.1: the JDK client's HTTP/2 streams could hang past an API server restart (a warm-up's Event
    // create waited 700 s in the fault suite's kube-apiserver case, and its pod stayed gated); a broken
    // HTTP/1.1 connection fails its request, which is retried or reported
    val client =
        KubernetesClientBuilder()
            .withConfig(
                ConfigBuilder(Config.autoConfigure(null)).withHttp2Disable(true).build(),
            ).build()
    val shuttingDown = AtomicBoolean(false)
    lateinit var operator: Operator
    operator =
        Operator(config, client, WarmupMetrics().withJvmMetrics()) {
            // Giving the Lease up on SIGTERM also ends up here, inside the shutdown hook: exiting
            // from there would wait on the hook itself and hang the pod until SIGKILL.
            if (!shuttingDown.get()) {
                // a former leader must not act on stale beliefs: it stops acting, then exits, and the
                // restart rejoins as a follower; in between its webhook serves until the Service drops it
                log.atWarn().addKeyValue("identity", config.identity).log("leadership lost: stopping, then exiting")
                // not on the elector's thread: stopping JOSDK waits for its executors, that thread's among them
                Thread({
                    operator.abdicate()
                    exitProcess(1)
                }, "danki-abdicate").start()
            }
        }
    Runtime.getRuntime().addShutdownHook(
        Thread {
            shuttingDown.set(true)
            log.info("shutting down")
            operator.stop()
            client.close()
        },
    )
    try {
        operator.start()
    } catch (
        @Suppress("TooGenericExceptionCaught") e: RuntimeException,
    ) {
        // e.g. JOSDK's leader election refusing to start without its Lease rights: the HTTP server's
        // threads would keep a replica that never leads alive, so exit and let the restart say why
        log.atError().setCause(e).log("operator could not start: exiting")
        exitProcess(1)
    }
    log
        .atInfo()
        .addKeyValue("version", BuildInfo.version)
        .addKeyValue("namespaces", config.watchNamespaces.ifEmpty { listOf("*") })
        .addKeyValue("concurrency", config.concurrency)
        .addKeyValue("httpPort", operator.http.port)
        .addKeyValue("identity", config.identity)
        .addKeyValue("leaderElection", config.leaderElection)
        .log("operator started")
}
