package dev.danki.cli

import dev.danki.operator.kube.WarmupHistory

/**
 * What reading a Deployment's WarmupHistory gave. The history sits below the current pods' table, so
 * finding none, or not being allowed to read it, is a note there and never a failed report.
 */
sealed interface HistoryLookup {
    /** The history, with at least one entry. */
    data class Found(
        val history: WarmupHistory,
    ) : HistoryLookup

    /**
     * Nothing recorded: no object, or one without entries. [served] says whether the API serves
     * WarmupHistories at all (false: a danki chart older than them); null when discovery did not answer.
     */
    data class Absent(
        val served: Boolean?,
    ) : HistoryLookup

    /** RBAC denied `get warmuphistories.danki.dev`. */
    data object Denied : HistoryLookup
}
