package dev.danki.operator.history

import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupRunStatus

/** Turns a finished run into a history entry and keeps a Deployment's entries bounded, newest first. */
object HistoryEntries {
    /** What a runbook needs of a run once its pod is gone: when, how long, cold and warm, why it stopped. */
    fun of(runName: String, node: String?, status: WarmupRunStatus) =
        WarmupHistoryEntry().apply {
            run = runName
            pod = status.podName
            this.node = node
            phase = status.phase
            reason = status.reason
            stopReason = status.stopReason
            startTime = status.startTime
            completionTime = status.completionTime
            duration = status.duration
            queueWait = status.queueWait
            requests = status.requests?.total
            cold = status.cold
            warm = status.warm
        }

    /**
     * [entry] in front of [kept], without an older copy of the same result (a write repeated after a
     * conflict), cut to the [retention] newest.
     */
    fun prepend(kept: List<WarmupHistoryEntry>, entry: WarmupHistoryEntry, retention: Int): List<WarmupHistoryEntry> {
        val others = kept.filterNot { sameResult(it, entry) }
        return (listOf(entry) + others).take(retention)
    }

    /** Whether [kept] already holds this very result, so it is not counted twice. */
    fun holds(kept: List<WarmupHistoryEntry>, entry: WarmupHistoryEntry) = kept.any { sameResult(it, entry) }

    /** One run ends once per try: its name and completion time name one result. */
    private fun sameResult(a: WarmupHistoryEntry, b: WarmupHistoryEntry) =
        a.run == b.run && a.completionTime == b.completionTime
}
