package dev.danki.operator.controller

import dev.danki.operator.gate.PodGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.leader.NotLeading
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.K6SummaryParser
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.mockk.every
import io.mockk.mockk
import io.mockk.slot
import io.mockk.spyk
import io.mockk.verify
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.RejectedExecutionException

/** What a warm-up's result writes, and in which order: the pod's gate before anything else. */
class RunRecorderTest {
    private val order: MutableList<String> = Collections.synchronizedList(mutableListOf())
    private val gate =
        mockk<PodGate> {
            every { write(any(), any(), any()) } answers {
                order += "gate"
                true
            }
        }
    private val runs = mockk<RunStore> { every { writeStatus(any(), any(), any()) } answers { order += "run" } }
    private val history =
        mockk<RunHistory> {
            every { record(any(), any(), any(), any(), any()) } answers
                { order += "history" }
        }
    private val events =
        mockk<EventRecorder> {
            every { normal(any(), any(), any()) } answers { order += "event" }
            every { warning(any(), any(), any()) } answers { order += "event" }
        }
    private val metrics =
        spyk(WarmupMetrics()) {
            every { runFinished(any(), any(), any(), any()) } answers {
                order += "metrics"
                callOriginal()
            }
        }
    private val caches = mockk<Caches> { every { pods.get(any(), any()) } returns null }
    private val recorder = RunRecorder(runs, gate, events, metrics, caches, history)

    private val pod =
        PodBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web-1")
            .withUid("uid-1")
            .endMetadata()
            .build()
    private val ref = RunRef(pod, "web-1", WarmupRunSpec().apply { deployment = "web" })

    private fun fail() = recorder.failed(ref, WarmupRunStatus(), "K6Failed", "k6 exited 107")

    @Test
    fun `a success patches the gate before the run, the Event, the metrics and the history`() {
        val summary = K6SummaryParser.parse(javaClass.getResource("/k6/summary-converged.json")!!.readText())
        recorder.succeeded(ref, WarmupRunStatus(), summary, WarmupPlan.DEFAULT_MIN_WARMUP_REQUESTS)
        order shouldContainExactly listOf("gate", "run", "event", "metrics", "history")
    }

    @Test
    fun `a success's stop evidence shows the floor of warm-up requests the pod was given`() {
        val summary = K6SummaryParser.parse(javaClass.getResource("/k6/summary-converged.json")!!.readText())
        val status = WarmupRunStatus()
        recorder.succeeded(ref, status, summary, 600)
        status.stopEvidence!!.minRequests shouldBe 600
    }

    @Test
    fun `a failure patches the gate before the run, the Event, the metrics and the history`() {
        fail()
        order shouldContainExactly listOf("gate", "run", "event", "metrics", "history")
    }

    @Test
    fun `a history that cannot take the entry neither holds back nor undoes the gate`() {
        every { history.record(any(), any(), any(), any(), any()) } throws RejectedExecutionException("shutting down")
        shouldThrow<RejectedExecutionException> { fail() }
        order shouldContainExactly listOf("gate", "run", "event", "metrics")
    }

    @Test
    fun `a gate that cannot be written still leaves the run, the Event, the metrics and the history`() {
        every { gate.write(any(), any(), any()) } throws KubernetesClientException("apiserver down")
        shouldThrow<KubernetesClientException> { fail() }
        order shouldContainExactly listOf("run", "event", "metrics", "history")
        recorder.finalStatus("shop/web-1")?.phase shouldBe "Failed"
    }

    @Test
    fun `a late result of an earlier run is recorded on that run and never touches the gate`() {
        // the containers restarted: run web-1-r1 warms the pod now, and web-1's k6 returned just after
        every { caches.pods.get("shop", "web-1") } returns restarted(1)
        val event = slot<String>()
        every { events.warning(any(), any(), capture(event)) } answers { order += "event" }
        fail()
        withClue("the gate is run web-1-r1's to decide, not web-1's") {
            order shouldContainExactly listOf("run", "event", "metrics", "history")
        }
        verify(exactly = 0) { gate.write(any(), any(), any()) }
        verify { runs.writeStatus("shop", "web-1", match { it.phase == "Failed" }) }
        event.captured shouldContain "not applied"
    }

    @Test
    fun `a restart the cache has not seen yet is found on the API server before the gate is written`() {
        every { caches.pods.get("shop", "web-1") } returns restarted(0, resourceVersion = "7")
        every { gate.write(any(), any(), true) } throws modified()
        every { gate.read(any()) } returns restarted(1, resourceVersion = "9")
        fail()
        order shouldContainExactly listOf("run", "event", "metrics", "history")
        verify(exactly = 1) { gate.write(match { it.metadata.resourceVersion == "7" }, any(), true) }
    }

    @Test
    fun `a gate write refused only because the cache was behind is made again on the API server's pod`() {
        every { caches.pods.get("shop", "web-1") } returns restarted(0, resourceVersion = "7")
        every { gate.write(match { it.metadata.resourceVersion == "7" }, any(), true) } throws modified()
        every { gate.read(any()) } returns restarted(0, resourceVersion = "8")
        fail()
        order shouldContainExactly listOf("gate", "run", "event", "metrics", "history")
        verify { gate.write(match { it.metadata.resourceVersion == "8" }, any(), true) }
    }

    @Test
    fun `a replica that lost its Lease reports nothing of a result it could not write`() {
        // the next leader decides the pod, and its Event and metrics are the ones that count
        every { gate.write(any(), any(), any()) } throws NotLeading("the gate of pod shop/web-1")
        every { runs.writeStatus(any(), any(), any()) } throws NotLeading("WarmupRun shop/web-1")
        shouldThrow<NotLeading> { fail() }
        order shouldContainExactly emptyList()
    }

    /** The API server's answer to a write whose resourceVersion is no longer the pod's. */
    private fun modified() = KubernetesClientException("the object has been modified", 409, null)

    /** [pod] as the kubelet reports it after [restarts] container restarts. */
    private fun restarted(restarts: Int, resourceVersion: String = "1") =
        PodBuilder(pod)
            .editMetadata()
            .withResourceVersion(resourceVersion)
            .endMetadata()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("app")
            .withRestartCount(restarts)
            .endContainerStatus()
            .endStatus()
            .build()
}
