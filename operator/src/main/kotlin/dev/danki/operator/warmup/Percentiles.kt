package dev.danki.operator.warmup

/** Latency percentiles of one phase, in milliseconds. */
data class Percentiles(
    val p25: Double,
    val p50: Double,
    val p75: Double,
    val p90: Double,
    val p95: Double,
) {
    fun asMap() = linkedMapOf("p25" to p25, "p50" to p50, "p75" to p75, "p90" to p90, "p95" to p95)
}
