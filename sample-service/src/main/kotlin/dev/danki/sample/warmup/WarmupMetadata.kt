package dev.danki.sample.warmup

import io.grpc.Context
import io.grpc.Contexts
import io.grpc.Metadata
import io.grpc.ServerCall
import io.grpc.ServerCallHandler
import io.grpc.ServerInterceptor

/**
 * The gRPC side of `X-Danki-Warmup: 1`: a call with metadata `x-danki-warmup: 1` is warm-up traffic,
 * so its writes are rolled back and its metrics kept apart, as for HTTP ([isWarmup]).
 */
object WarmupMetadata {
    /** gRPC metadata keys are lower case; the value is the HTTP header's. */
    val KEY: Metadata.Key<String> = Metadata.Key.of(WARMUP_HEADER.lowercase(), Metadata.ASCII_STRING_MARSHALLER)
    private val WARMUP: Context.Key<Boolean> = Context.key("danki-warmup")

    /** True when [headers] mark a warm-up call. */
    fun isWarmup(headers: Metadata): Boolean = headers.get(KEY)?.trim() == "1"

    /** True inside a call that [interceptor] saw marked as warm-up. */
    fun isWarmupCall(): Boolean = WARMUP.get() == true

    /** Puts the call's warm-up mark in its gRPC Context, where the service reads it with [isWarmupCall]. */
    val interceptor =
        object : ServerInterceptor {
            override fun <ReqT, RespT> interceptCall(
                call: ServerCall<ReqT, RespT>,
                headers: Metadata,
                next: ServerCallHandler<ReqT, RespT>,
            ): ServerCall.Listener<ReqT> {
                val context = Context.current().withValue(WARMUP, isWarmup(headers))
                return Contexts.interceptCall(context, call, headers, next)
            }
        }
}
