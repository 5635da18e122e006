package dev.danki.sample.metrics

import dev.danki.sample.threads.ThreadSnapshot
import io.micrometer.core.instrument.Counter
import io.micrometer.core.instrument.Gauge
import io.micrometer.core.instrument.Timer
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics
import io.micrometer.core.instrument.binder.system.ProcessorMetrics
import io.micrometer.core.instrument.binder.system.UptimeMetrics
import io.micrometer.prometheusmetrics.PrometheusConfig
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong

/**
 * The one place the service's metrics are defined. Business requests and warm-up requests
 * (`X-Danki-Warmup: 1`) go to different meters, so warm-up traffic never shows in the business latency.
 */
class ServiceMetrics : AutoCloseable {
    /** Registry scraped at /metrics; also handed to HikariCP for pool metrics. */
    val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)

    private val jvmGcMetrics = JvmGcMetrics()
    private val reservedStackBytes = AtomicLong()
    private val threadsByPool = ConcurrentHashMap<String, AtomicInteger>()

    init {
        listOf(
            JvmMemoryMetrics(),
            jvmGcMetrics,
            JvmThreadMetrics(),
            ClassLoaderMetrics(),
            JvmCompilationMetrics(),
            ProcessorMetrics(),
            UptimeMetrics(),
        ).forEach { it.bindTo(registry) }
        Gauge
            .builder("danki_sample_reserved_thread_stack_bytes", reservedStackBytes) { it.get().toDouble() }
            .description("Live threads times the configured thread stack size")
            .baseUnit("bytes")
            .register(registry)
    }

    /**
     * Copies a thread snapshot into the per-pool gauges; called before each scrape, so one snapshot
     * serves every gauge (a snapshot per gauge would stop the JVM once per pool).
     */
    fun updateThreads(snapshot: ThreadSnapshot) {
        reservedStackBytes.set(snapshot.reservedStackBytes)
        threadsByPool.values.forEach { it.set(0) }
        snapshot.threadsByPool.forEach { (pool, count) ->
            threadsByPool
                .computeIfAbsent(pool) { name ->
                    AtomicInteger().also { holder ->
                        Gauge
                            .builder("danki_sample_pool_threads", holder) { it.get().toDouble() }
                            .description("Live threads by pool (thread name without its numbers)")
                            .tag("pool", name)
                            .register(registry)
                    }
                }.set(count)
        }
    }

    /** Records a business request's latency by route template, method and status. */
    fun recordRequest(route: String, method: String, status: Int, duration: Duration) {
        Timer
            .builder("danki_sample_http_server_requests")
            .description("Latency of business requests (warm-up requests excluded)")
            .tags("route", route, "method", method, "status", status.toString())
            .publishPercentileHistogram()
            .register(registry)
            .record(duration)
    }

    /** Records a business gRPC call's latency by full method name and status code name. */
    fun recordGrpcCall(method: String, status: String, duration: Duration) {
        Timer
            .builder("danki_sample_grpc_server_requests")
            .description("Latency of business gRPC calls (warm-up calls excluded)")
            .tags("method", method, "status", status)
            .publishPercentileHistogram()
            .register(registry)
            .record(duration)
    }

    /** Records a warm-up request, kept out of [recordRequest]'s business histogram. */
    fun recordWarmup(route: String, method: String, status: Int, duration: Duration) {
        Counter
            .builder("danki_sample_warmup_requests")
            .description("Requests that carried X-Danki-Warmup: 1")
            .tags("route", route, "method", method, "status", status.toString())
            .register(registry)
            .increment()
        Timer
            .builder("danki_sample_warmup_request_duration")
            .description("Latency of warm-up requests")
            .tags("route", route)
            .register(registry)
            .record(duration)
    }

    /** Prometheus text exposition of every meter. */
    fun scrape(): String = registry.scrape()

    override fun close() {
        jvmGcMetrics.close()
        registry.close()
    }
}
