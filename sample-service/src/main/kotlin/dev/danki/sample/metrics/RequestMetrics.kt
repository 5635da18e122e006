package dev.danki.sample.metrics

import dev.danki.sample.warmup.isWarmup
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.createApplicationPlugin
import io.ktor.server.application.hooks.ResponseSent
import io.ktor.server.request.httpMethod
import io.ktor.server.routing.RoutingNode
import io.ktor.server.routing.RoutingRoot
import io.ktor.util.AttributeKey
import org.slf4j.LoggerFactory
import java.time.Duration

private val startedAt = AttributeKey<Long>("danki.startedAt")
private val routeTemplate = AttributeKey<String>("danki.route")
private val log = LoggerFactory.getLogger("dev.danki.sample.requests")

/** Route selectors such as `/(method:GET)` that are not part of the path template. */
private val NON_PATH_SELECTOR = Regex("/\\([^)]*\\)")

/**
 * Times every call and records it as business or warm-up traffic, labelled by route template
 * (`/exams/{id}`), never by the raw path, so the label set stays small.
 */
val RequestMetrics =
    createApplicationPlugin("RequestMetrics", ::RequestMetricsConfig) {
        val metrics = pluginConfig.metrics
        application.monitor.subscribe(RoutingRoot.RoutingCallStarted) { call ->
            call.attributes.put(routeTemplate, templateOf(call.route))
        }
        onCall { call -> call.attributes.put(startedAt, System.nanoTime()) }
        on(ResponseSent) { call -> record(metrics, call) }
    }

private fun record(metrics: ServiceMetrics, call: ApplicationCall) {
    val started = call.attributes.getOrNull(startedAt) ?: return
    val duration = Duration.ofNanos(System.nanoTime() - started)
    val route = call.attributes.getOrNull(routeTemplate) ?: "unmatched"
    val status = call.response.status()?.value ?: 0
    val method = call.request.httpMethod.value
    val warmup = call.isWarmup
    if (warmup) {
        metrics.recordWarmup(route, method, status, duration)
    } else {
        metrics.recordRequest(route, method, status, duration)
    }
    // the thread name in every log line shows which event-loop thread served the call
    log
        .atDebug()
        .addKeyValue("method", method)
        .addKeyValue("route", route)
        .addKeyValue("status", status)
        .addKeyValue("ms", duration.toMillis())
        .addKeyValue("warmup", warmup)
        .log("request served")
}

private fun templateOf(route: RoutingNode): String = route.toString().replace(NON_PATH_SELECTOR, "").ifEmpty { "/" }
