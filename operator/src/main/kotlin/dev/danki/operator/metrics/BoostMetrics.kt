package dev.danki.operator.metrics

import io.prometheus.metrics.core.metrics.Counter
import io.prometheus.metrics.model.registry.PrometheusRegistry

/** How the CPU boosts of gated pods ended, on the operator's one registry beside [WarmupMetrics]. */
class BoostMetrics(
    registry: PrometheusRegistry,
) {
    private val boosts =
        Counter
            .builder()
            .name("danki_cpu_boosts_total")
            .help(
                "CPU boosts of gated pods (danki.dev/warmup-cpu) by how each ended: restored, skipped, refused, " +
                    "not_restored (the pod may keep the raised limit: see its CpuBoostNotRestored Event).",
            ).labelNames("result")
            .register(registry)

    /** One boost ended as [result]; never labelled by pod or Deployment, so the series stay four. */
    fun ended(result: String) = boosts.labelValues(result).inc()
}
