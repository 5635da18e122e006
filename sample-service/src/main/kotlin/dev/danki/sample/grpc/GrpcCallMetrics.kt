package dev.danki.sample.grpc

import dev.danki.sample.metrics.ServiceMetrics
import dev.danki.sample.warmup.WarmupMetadata
import io.grpc.ForwardingServerCall
import io.grpc.Metadata
import io.grpc.ServerCall
import io.grpc.ServerCallHandler
import io.grpc.ServerInterceptor
import io.grpc.Status
import java.time.Duration

/** Times every gRPC call and records it as business or warm-up traffic, as RequestMetrics does for HTTP. */
class GrpcCallMetrics(
    private val metrics: ServiceMetrics,
) : ServerInterceptor {
    override fun <ReqT, RespT> interceptCall(
        call: ServerCall<ReqT, RespT>,
        headers: Metadata,
        next: ServerCallHandler<ReqT, RespT>,
    ): ServerCall.Listener<ReqT> {
        val started = System.nanoTime()
        val warmup = WarmupMetadata.isWarmup(headers)
        val method = call.methodDescriptor.fullMethodName
        val timed =
            object : ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT>(call) {
                override fun close(status: Status, trailers: Metadata) {
                    val duration = Duration.ofNanos(System.nanoTime() - started)
                    if (warmup) {
                        metrics.recordWarmup(method, GRPC_METHOD, status.code.value(), duration)
                    } else {
                        metrics.recordGrpcCall(method, status.code.name, duration)
                    }
                    super.close(status, trailers)
                }
            }
        return next.startCall(timed, headers)
    }

    private companion object {
        /** The `method` label of a gRPC call among the warm-up meters, whose other calls are HTTP. */
        const val GRPC_METHOD = "GRPC"
    }
}
