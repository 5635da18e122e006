package dev.danki.operator.controller

import dev.danki.operator.gate.PodGate
import dev.danki.operator.history.RunHistory
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.K6SummaryParser
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import io.mockk.spyk
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.RejectedExecutionException

/** What a warm-up's result writes, and in which order: the pod's gate before anything else. */
class RunRecorderTest {
    private val order: MutableList<String> = Collections.synchronizedList(mutableListOf())
    private val gate =
        mockk<PodGate> {
            every { write(any(), any()) } answers {
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
    private val ref = RunRef(pod, "web-1-r0", WarmupRunSpec().apply { deployment = "web" })

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
        every { gate.write(any(), any()) } throws KubernetesClientException("apiserver down")
        shouldThrow<KubernetesClientException> { fail() }
        order shouldContainExactly listOf("run", "event", "metrics", "history")
        recorder.finalStatus("shop/web-1-r0")?.phase shouldBe "Failed"
    }
}
