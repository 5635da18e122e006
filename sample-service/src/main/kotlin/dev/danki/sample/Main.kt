package dev.danki.sample

import dev.danki.sample.config.ConfigLoader
import dev.danki.sample.config.ServiceConfig
import dev.danki.sample.config.YamlSettings
import dev.danki.sample.grpc.GrpcServer
import dev.danki.sample.metrics.ServiceMetrics
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.ktor.server.netty.NettyApplicationEngine
import org.slf4j.LoggerFactory
import java.time.Duration
import kotlin.system.exitProcess

private val log = LoggerFactory.getLogger("dev.danki.sample.Main")

/** Exit code for configuration the service cannot start with. */
private const val EXIT_BAD_CONFIG = 2

/** Exit code when the database cannot be reached at start-up. */
private const val EXIT_NO_DATABASE = 3

/** Exit code when the gRPC port cannot be bound. */
private const val EXIT_NO_GRPC_PORT = 4
private const val STOP_GRACE_MS = 1000L
private const val STOP_TIMEOUT_MS = 5000L

/** Starts the service from `application.yaml` and the environment; takes no arguments. */
fun main() {
    val config =
        runCatching { YamlSettings.read() }
            .mapCatching { ConfigLoader.load(it, System.getenv()).getOrThrow() }
            .getOrElse { problem ->
                System.err.println("sample-service: ${problem.message}")
                exitProcess(EXIT_BAD_CONFIG)
            }
    val metrics = ServiceMetrics()
    val deps =
        runCatching { ServiceDependencies.create(config, metrics) }.getOrElse { problem ->
            val url = config.database.redactedUrl
            System.err.println("sample-service: cannot open database $url: ${problem.message}")
            exitProcess(EXIT_NO_DATABASE)
        }
    val grpc = startGrpc(config, deps)
    val server = embeddedServer(Netty, configure = { applyConfig(config) }) { module(deps) }
    Runtime.getRuntime().addShutdownHook(
        Thread({
            grpc?.stop(Duration.ofMillis(STOP_GRACE_MS))
            server.stop(STOP_GRACE_MS, STOP_TIMEOUT_MS)
            deps.close()
        }, "shutdown"),
    )
    server.start(wait = false)
    val engine = server.engine.configuration
    log
        .atInfo()
        .addKeyValue("host", config.host)
        .addKeyValue("port", config.port)
        .addKeyValue("callGroupSize", engine.callGroupSize)
        .addKeyValue("workerGroupSize", engine.workerGroupSize)
        .addKeyValue("runningLimit", engine.runningLimit)
        .addKeyValue("database", config.database.redactedUrl)
        .addKeyValue("grpcPort", grpc?.port ?: "off")
        .log("sample-service listening")
    Thread.currentThread().join()
}

/** The gRPC exam service on GRPC_PORT, or null when it is 0; exits when the port cannot be bound. */
private fun startGrpc(config: ServiceConfig, deps: ServiceDependencies): GrpcServer? {
    if (config.grpcPort == 0) return null
    return runCatching { GrpcServer(config.host, config.grpcPort, deps.exams, deps.metrics).start() }
        .getOrElse { problem ->
            val address = "${config.host}:${config.grpcPort}"
            System.err.println("sample-service: cannot serve gRPC on $address: ${problem.message}")
            deps.close()
            exitProcess(EXIT_NO_GRPC_PORT)
        }
}

/** Netty sizes from the config; 0 keeps Ktor's defaults. */
private fun NettyApplicationEngine.Configuration.applyConfig(config: ServiceConfig) {
    connector {
        host = config.host
        port = config.port
    }
    if (config.netty.callGroupSize > 0) callGroupSize = config.netty.callGroupSize
    if (config.netty.workerGroupSize > 0) workerGroupSize = config.netty.workerGroupSize
    runningLimit = config.netty.runningLimit
}
