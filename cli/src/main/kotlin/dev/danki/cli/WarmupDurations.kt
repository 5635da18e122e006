package dev.danki.cli

import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.warmup.DurationFormat
import java.time.Duration

/**
 * The durations of a history's succeeded warm-ups: what a runbook takes its lead time from. Failed
 * warm-ups are left out, since their duration is how long it took to give up, not to warm.
 */
data class WarmupDurations(
    /** Succeeded entries with a duration, the ones counted. */
    val succeeded: Int,
    /** The longest, e.g. `41.0s`; null when none counted. */
    val slowest: String?,
    val median: String?,
) {
    companion object {
        fun of(entries: List<WarmupHistoryEntry>): WarmupDurations {
            val durations =
                entries
                    .filter { it.phase == WarmupRun.PHASE_SUCCEEDED }
                    .mapNotNull { entry -> entry.duration?.let { DurationFormat.parse(it) } }
            val median = ResultTable.median(durations.map { it.toMillis().toDouble() })
            return WarmupDurations(
                succeeded = durations.size,
                slowest = durations.maxOrNull()?.let { DurationFormat.format(it) },
                median = median?.let { DurationFormat.format(Duration.ofMillis(it.toLong())) },
            )
        }
    }
}
