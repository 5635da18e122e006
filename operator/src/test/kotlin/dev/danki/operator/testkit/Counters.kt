package dev.danki.operator.testkit

import dev.danki.operator.metrics.WarmupMetrics
import io.prometheus.metrics.model.snapshots.CounterSnapshot

/**
 * The sum of counter [name] (as registered, `_total` included) over the series whose [label] is
 * [value] (every series without a label).
 */
fun WarmupMetrics.counter(name: String, label: String? = null, value: String? = null): Double =
    registry
        .scrape()
        .filterIsInstance<CounterSnapshot>()
        .filter { it.metadata.name == name.removeSuffix("_total") }
        .flatMap { it.dataPoints }
        .filter { label == null || it.labels.get(label) == value }
        .sumOf { it.value }
