package dev.danki.sample.metrics

/** Settings of [RequestMetrics]. */
class RequestMetricsConfig {
    /** Where to record; must be set. */
    lateinit var metrics: ServiceMetrics
}
