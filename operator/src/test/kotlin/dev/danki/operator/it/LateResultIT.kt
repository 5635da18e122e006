package dev.danki.operator.it

import dev.danki.operator.controller.RunRecorder
import dev.danki.operator.controller.RunRef
import dev.danki.operator.gate.GateRule
import dev.danki.operator.gate.PodGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.leader.Leadership
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.FailurePolicy
import io.fabric8.kubernetes.api.model.Pod
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * A warm-up result that arrives after its pod's containers restarted (issue 48, hole 1), on a real
 * kube-apiserver: the run `<pod>-r1` warms the cold JVM now, so the old run's result is recorded on
 * that old run and never reaches the gate, whether the pod informer has seen the restart or not. The
 * pod informer is the one fake: a snapshot, as up to date or as far behind as each case needs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LateResultIT {
    private val space = ItNamespace("danki-it-late-result")
    private val gate = PodGate(space.client, Leadership.always())
    private val runs = RunStore(space.client, Leadership.always())

    /** What the pod informer holds for the pod, set by each case. */
    private var cached: Pod? = null
    private val caches = mockk<Caches> { every { pods.get(any(), any()) } answers { cached } }
    private val recorder =
        RunRecorder(
            runs,
            gate,
            EventRecorder(space.client, "it-late-result"),
            WarmupMetrics(),
            caches,
            RunHistory(space.client, 0) { _, _ -> null },
        )

    @Test
    fun `a late failure of the run before a restart leaves the gate to the run after it`() {
        val (pod, ref) = warming("late-abc123-x1")
        restart(pod)
        cached = space.pod(pod.metadata.name)
        // failure policy open: before the fix this released the pod while -r1 warmed it
        recorder.failed(ref, running(), Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        assertLeftToTheNewRun(pod.metadata.name)
    }

    @Test
    fun `a late failure is kept off the gate even when the pod informer has not seen the restart yet`() {
        val (pod, ref) = warming("late-abc123-x2")
        cached = space.pod(pod.metadata.name)
        restart(pod)
        recorder.failed(ref, running(), Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        assertLeftToTheNewRun(pod.metadata.name)
    }

    @Test
    fun `the current run's result still lands when the pod informer is only behind`() {
        val (pod, ref) = warming("late-abc123-x3")
        cached = space.pod(pod.metadata.name)
        // a change that is not a restart: the write judged on the snapshot is refused, then made on the pod as it is
        space.client
            .pods()
            .inNamespace(space.ns)
            .withName(pod.metadata.name)
            .edit { it.apply { metadata.labels["touched"] = "yes" } }
        recorder.failed(ref, running(), Keys.RunConditions.REASON_TIMEOUT, "no result within the timeout")
        val decided = space.gate(pod.metadata.name)!!
        "${decided.status}/${decided.reason}" shouldBe "True/${Keys.GateReasons.WARMUP_FAILED_OPEN}"
    }

    /** A ready gated pod whose first run (restart count 0, failure policy open) is Running. */
    private fun warming(name: String): Pair<Pod, RunRef> {
        val pod = space.createReadyPod("late", name, 8080).let { space.pod(it.metadata.name)!! }
        val spec =
            WarmupRunSpec().apply {
                podName = name
                podUid = pod.metadata.uid
                deployment = "late"
                restartCount = 0
                failurePolicy = FailurePolicy.OPEN.value
            }
        runs.create(pod, name, spec, running())
        return pod to RunRef(pod, name, spec)
    }

    /** What the reconciler does on a restart: gate False, and run `-r1` created Pending. */
    private fun restart(pod: Pod) {
        Fixtures.markReady(space.client, pod, "127.0.0.1", restarts = 1)
        val restarted = space.pod(pod.metadata.name)!!
        gate.write(restarted, GateRule.containerRestarted(1))
        val spec =
            WarmupRunSpec().apply {
                podName = pod.metadata.name
                podUid = pod.metadata.uid
                restartCount = 1
            }
        val pending = WarmupRunStatus().apply { phase = WarmupRun.PHASE_PENDING }
        runs.create(restarted, "${pod.metadata.name}-r1", spec, pending)
    }

    private fun running() = WarmupRunStatus().apply { phase = WarmupRun.PHASE_RUNNING }

    private fun assertLeftToTheNewRun(name: String) {
        val decided = space.gate(name)!!
        withClue("the gate of $name after run $name's late result, while $name-r1 warms it") {
            "${decided.status}/${decided.reason}" shouldBe "False/${Keys.GateReasons.CONTAINER_RESTARTED}"
        }
        space.run(name)!!.status.phase shouldBe WarmupRun.PHASE_FAILED
        space.run("$name-r1")!!.status.phase shouldBe WarmupRun.PHASE_PENDING
    }
}
