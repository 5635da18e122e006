package dev.danki.operator.metrics

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Pod
import java.time.Instant

/**
 * The go/no-go view of the pods danki gates, counted per Deployment and state from the caches at
 * scrape time: how many are warmed, still pending, queued, warming or failed, and how many are held
 * past their run's deadline. Pure over snapshots, so it is tested without a cluster.
 */
object GatedPods {
    /** One series: the pods of [deployment] in [state]. */
    data class Key(
        val namespace: String,
        val deployment: String,
        val state: String,
    )

    const val PENDING = "pending"
    const val QUEUED = "queued"
    const val WARMING = "warming"
    const val WARMED = "warmed"
    const val FAILED = "failed"
    private const val OVERDUE = "overdue"

    /** Gated pods by Deployment and state; pods without danki's readiness gate are not counted. */
    fun count(pods: List<Pod>, runsOf: (Pod) -> List<WarmupRun>): Map<Key, Int> =
        pods
            .filter { hasGate(it) && it.metadata.deletionTimestamp == null }
            .mapNotNull { pod ->
                PodOwners.deploymentOf(pod)?.let { Key(pod.metadata.namespace, it, stateOf(pod, latest(runsOf(pod)))) }
            }.groupingBy { it }
            .eachCount()

    /**
     * Pods whose open run (queued or warming) is past its deadline: held longer than their timeout.
     * Every Deployment with gated pods has its line, 0 when none is late, so an alert sees a value.
     */
    fun overdue(pods: List<Pod>, runsOf: (Pod) -> List<WarmupRun>, now: Instant): Map<Key, Int> =
        pods
            .filter { hasGate(it) && it.metadata.deletionTimestamp == null }
            .mapNotNull { pod -> PodOwners.deploymentOf(pod)?.let { pod to Key(pod.metadata.namespace, it, OVERDUE) } }
            .groupBy({ it.second }, { it.first })
            .mapValues { (_, held) -> held.count { !gateTrue(it) && isLate(latest(runsOf(it)), now) } }

    private fun isLate(run: WarmupRun?, now: Instant): Boolean {
        val open = run != null && run.status?.phase in setOf(null, WarmupRun.PHASE_PENDING, WarmupRun.PHASE_RUNNING)
        val deadline = run?.status?.deadline?.let { runCatching { Instant.parse(it) }.getOrNull() }
        return open && deadline != null && deadline.isBefore(now)
    }

    private fun stateOf(pod: Pod, run: WarmupRun?): String =
        when {
            // released by failure policy open: in its Service, but cold
            gateTrue(pod) && PodGate.conditionOf(pod)?.reason == Keys.GateReasons.WARMUP_FAILED_OPEN -> FAILED

            gateTrue(pod) -> WARMED

            run == null -> PENDING

            run.status?.phase == WarmupRun.PHASE_RUNNING -> WARMING

            run.status?.phase in setOf(null, WarmupRun.PHASE_PENDING) -> QUEUED

            run.status?.phase == WarmupRun.PHASE_SUCCEEDED -> WARMED

            else -> FAILED
        }

    private fun latest(runs: List<WarmupRun>) = runs.maxByOrNull { it.spec?.restartCount ?: 0 }

    private fun hasGate(pod: Pod) = PodGate.hasGate(pod)

    private fun gateTrue(pod: Pod) = PodGate.conditionOf(pod)?.status == "True"
}
