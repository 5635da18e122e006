package dev.danki.cli

import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import java.time.Duration
import java.time.Instant

private const val NO_RUN = "no WarmupRun yet (pod not ready, or is the danki operator running?)"

/** A new pod at the end of following, with the run that speaks for it (null: none yet). */
data class FollowedPod(
    val pod: Pod,
    val run: WarmupRun?,
) {
    val state get() = PodState.of(run)

    /** The pod's row; one without a run says why it is still waiting. */
    fun result(): PodResult =
        run?.let { PodResult.of(it) }
            ?: PodResult(
                pod.metadata.name,
                WarmupRun.PHASE_PENDING,
                reason = PodState.waitingReason(pod) ?: NO_RUN,
            )
}

/**
 * Follows the new pods of a scaled Deployment until each is decided (warmed or failed) or the
 * deadline passes: polls every [POLL], prints a progress line when the counts change (and every
 * [HEARTBEAT] otherwise), and says once why a pod cannot be created or scheduled.
 */
class Follower(
    private val reader: ClusterReader,
    private val console: Console,
) {
    private val told = mutableSetOf<String>()

    fun follow(deployment: Deployment, oldPods: Set<String>, expected: Int, timeout: Duration): List<FollowedPod> {
        val start = Instant.now()
        val deadline = start + timeout
        var lastLine = ""
        var lastPrinted = Instant.MIN
        while (true) {
            val followed = snapshot(deployment, oldPods)
            val elapsed = Duration.between(start, Instant.now())
            val line = PodState.line(elapsed.seconds, followed.map { it.state }, expected)
            val counts = line.substringAfter("s  ")
            if (counts != lastLine || Duration.between(lastPrinted, Instant.now()) >= HEARTBEAT) {
                console.out.println(line)
                lastLine = counts
                lastPrinted = Instant.now()
            }
            explainWaits(deployment, followed, expected)
            val done = followed.size >= expected && followed.all { it.state.decided }
            if (done || !Instant.now().isBefore(deadline)) return followed
            Thread.sleep(POLL.toMillis())
        }
    }

    private fun snapshot(deployment: Deployment, oldPods: Set<String>): List<FollowedPod> {
        val ref = DeploymentRef(deployment.metadata.namespace, deployment.metadata.name)
        val runs = reader.runs(ref)
        return reader
            .pods(deployment)
            .filter { it.metadata.uid !in oldPods && it.metadata.deletionTimestamp == null }
            .sortedBy { it.metadata.name }
            .map { FollowedPod(it, PodState.latestRun(it, runs)) }
    }

    /** Says once per cause why a pod waits: unschedulable, or a ReplicaSet refused by a quota or policy. */
    private fun explainWaits(deployment: Deployment, followed: List<FollowedPod>, expected: Int) {
        for (f in followed.filter { it.state == PodState.PENDING }) {
            val why = PodState.waitingReason(f.pod) ?: continue
            val name = f.pod.metadata.name
            if (told.add("$name:$why")) console.out.println("       pod $name waits: $why")
        }
        if (followed.size >= expected) return
        val refused =
            reader
                .warnings(deployment.metadata.namespace)
                .filter { it.reason == "FailedCreate" }
                .filter { it.involvedObject?.name?.startsWith(deployment.metadata.name) == true }
        for (event in refused.takeLast(1)) {
            val text = "${event.involvedObject.kind} ${event.involvedObject.name} cannot create pods: ${event.message}"
            if (told.add(text)) console.out.println("       $text")
        }
    }

    companion object {
        val POLL: Duration = Duration.ofSeconds(2)
        val HEARTBEAT: Duration = Duration.ofSeconds(15)
    }
}
