package dev.danki.operator.gate

import dev.danki.operator.kube.WarmupRun

/** What the pod reconciler knows about one gated pod, gathered from the informer caches. */
data class PodFacts(
    /** The pod spec lists the `danki.dev/warmed` readiness gate. */
    val hasGate: Boolean,
    /** The pod has a deletionTimestamp. */
    val deleting: Boolean,
    /** A warm-up is wanted: the Deployment opted in, or the user wrote the gate themselves. */
    val wanted: Boolean,
    val containersReady: Boolean,
    val hasPodIP: Boolean,
    /** Status of the gate condition: true, false, or null when absent. */
    val gateTrue: Boolean?,
    /** Phase of the WarmupRun for the pod's current restart count, or null when there is none. */
    val runPhase: String?,
    /** A WarmupRun exists for an earlier restart count: the containers restarted since. */
    val olderRunExists: Boolean,
    /** This operator process runs the pod's warm-up right now (k6 attempts under way). */
    val runningHere: Boolean,
    /** The pod's warm-up waits in this process's queue for a free slot. */
    val queuedHere: Boolean,
    /** The Deployment's annotations are invalid. */
    val invalidConfig: Boolean,
    /** The pod's address is not one danki may send traffic to (see WarmupTarget). */
    val targetRefused: Boolean = false,
    /** ContainersReady plus the timeout lies in the past. */
    val deadlinePassed: Boolean,
    /** The run failed and is to be tried again now (see RunRetry): decided as if it had no result yet. */
    val retryAsked: Boolean = false,
)
