package dev.danki.cli

import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Pod

/** Where a new pod is on its way into the Service, as the progress line counts it. */
enum class PodState {
    /** Not scheduled, not started, or not ready yet: danki has not made a WarmupRun for it. */
    PENDING,

    /** Its WarmupRun waits for a free warm-up slot. */
    QUEUED,
    WARMING,
    WARMED,

    /** Its warm-up failed or was cancelled. */
    FAILED,
    ;

    val decided get() = this == WARMED || this == FAILED

    companion object {
        /** Seconds right-aligned in five columns, so progress lines stack. */
        private const val SECONDS_WIDTH = 5

        fun of(run: WarmupRun?): PodState =
            when (run?.status?.phase) {
                null -> if (run == null) PENDING else QUEUED
                WarmupRun.PHASE_PENDING -> QUEUED
                WarmupRun.PHASE_RUNNING -> WARMING
                WarmupRun.PHASE_SUCCEEDED -> WARMED
                else -> FAILED
            }

        /** The run that speaks for [pod] now: the one for its latest container restart. */
        fun latestRun(pod: Pod, runs: List<WarmupRun>): WarmupRun? =
            runs
                .filter { run ->
                    val spec = run.spec
                    spec?.podUid == pod.metadata.uid || (spec?.podUid == null && spec?.podName == pod.metadata.name)
                }.maxByOrNull { it.spec?.restartCount ?: 0 }

        /** One progress line, e.g. `  12s  3 new pods: 1 pending, 0 queued, 1 warming, 1 warmed, 0 failed`. */
        fun line(elapsedSeconds: Long, states: List<PodState>, expected: Int): String {
            val counts = entries.joinToString(", ") { s -> "${states.count { it == s }} ${s.name.lowercase()}" }
            val missing = (expected - states.size).takeIf { it > 0 }?.let { " ($it not created yet)" } ?: ""
            return "${elapsedSeconds.toString().padStart(SECONDS_WIDTH)}s  ${states.size} new pods$missing: $counts"
        }

        /** Why a pending pod waits, from its conditions: `Unschedulable: 0/1 nodes are available: ...`. */
        fun waitingReason(pod: Pod): String? =
            pod.status
                ?.conditions
                .orEmpty()
                .firstOrNull { it.status == "False" && it.reason != null && it.type == "PodScheduled" }
                ?.let { "${it.reason}: ${it.message ?: ""}".trim() }
    }
}
