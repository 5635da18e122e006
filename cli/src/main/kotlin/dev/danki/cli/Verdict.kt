package dev.danki.cli

import dev.danki.operator.kube.WarmupRun

/**
 * The go/no-go: every new pod warmed and its warm P95 at or under the ceiling. Returns one reason per
 * pod that fails it; an empty list is a go.
 */
object Verdict {
    fun problems(results: List<PodResult>, maxWarmP95Millis: Double?): List<String> =
        results.mapNotNull { r ->
            when {
                r.phase == WarmupRun.PHASE_PENDING && r.reason != null -> {
                    "${r.pod}: not warmed (${r.reason})"
                }

                !r.warmed -> {
                    "${r.pod}: ${r.phase}" + (r.reason?.let { ": $it" } ?: "")
                }

                maxWarmP95Millis != null && (r.warmP95 ?: Double.MAX_VALUE) > maxWarmP95Millis -> {
                    "${r.pod}: warm P95 ${ResultTable.ms(r.warmP95)} ms is over --max-warm-p95 " +
                        "${ResultTable.ms(maxWarmP95Millis)} ms"
                }

                else -> {
                    null
                }
            }
        }
}
