package dev.danki.sample.grpc

import dev.danki.sample.exam.ExamService
import dev.danki.sample.metrics.ServiceMetrics
import dev.danki.sample.warmup.WarmupMetadata
import io.grpc.Server
import io.grpc.ServerInterceptors
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
import java.net.InetSocketAddress
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * The gRPC exam service on its own port, beside the HTTP server: started and stopped with it by Main.
 * Port 0 binds a free port (tests); [port] says which.
 */
class GrpcServer(
    host: String,
    port: Int,
    exams: ExamService,
    metrics: ServiceMetrics,
) {
    // interceptors run last-listed first: the metrics see every call, the warm-up mark reaches the service
    private val service =
        ServerInterceptors.intercept(
            ExamGrpcService(exams),
            WarmupMetadata.interceptor,
            GrpcCallMetrics(metrics),
        )
    private val server: Server =
        NettyServerBuilder
            .forAddress(InetSocketAddress(host, port))
            .addService(service)
            .build()

    /** The bound port, once started. */
    val port: Int get() = server.port

    /** Binds the port; throws [java.io.IOException] when it is taken. */
    fun start(): GrpcServer = apply { server.start() }

    /** Lets calls in flight finish for up to [grace], then cancels the rest. */
    fun stop(grace: Duration) {
        server.shutdown()
        if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            server.shutdownNow()
            server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)
        }
    }
}
