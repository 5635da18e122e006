package dev.danki.operator.metrics

import io.javaoperatorsdk.operator.api.monitoring.Metrics
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics
import io.micrometer.core.instrument.Clock
import io.micrometer.prometheusmetrics.PrometheusConfig
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry
import io.prometheus.metrics.model.registry.PrometheusRegistry

/**
 * JOSDK's own metrics (reconciliations started, succeeded and failed, retries, events, per controller),
 * written through Micrometer into danki's [PrometheusRegistry], so one `/metrics` page serves both.
 * Per-resource series are off: one series per pod and Deployment would grow with the cluster.
 */
object ReconcileMetrics {
    fun into(registry: PrometheusRegistry): Metrics =
        MicrometerMetrics.withoutPerResourceMetrics(
            PrometheusMeterRegistry(PrometheusConfig.DEFAULT, registry, Clock.SYSTEM),
        )
}
