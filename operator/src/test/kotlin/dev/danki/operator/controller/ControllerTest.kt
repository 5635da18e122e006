package dev.danki.operator.controller

import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.io.IOException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

class ControllerTest {
    private val pod = WorkItem(WorkItem.Kind.POD, "ns", "p")

    @Test
    fun `workers start only once the caches have synced`() {
        val handled = LinkedBlockingQueue<WorkItem>()
        val controller =
            Controller(2, {
                handled += it
                null
            }, { true })
        val synced = CompletableFuture<Void>()
        controller.enqueuePod("ns", "p")
        controller.startWhen(synced)
        controller.started shouldBe false
        controller.queue.size() shouldBe 1
        synced.complete(null)
        handled.poll(10, TimeUnit.SECONDS) shouldBe pod
        controller.started shouldBe true
        controller.stop()
    }

    @Test
    fun `caches that fail to sync start no worker`() {
        val controller = Controller(1, { null }, { true })
        controller.startWhen(CompletableFuture.failedFuture<Void>(IllegalStateException("no CRD")))
        controller.started shouldBe false
        controller.stop()
    }

    @Test
    fun `only a 404 of the reconciled object itself ends its retries`() {
        val notFound = KubernetesClientException("WarmupRun gone", 404, null)
        Controller.isDone(notFound, objectExists = false) shouldBe true
        // a 404 from a write to another object (a deleted WarmupRun, a missing CRD): the pod is still there
        Controller.isDone(notFound, objectExists = true) shouldBe false
        Controller.isDone(KubernetesClientException("boom", 500, null), objectExists = false) shouldBe false
        Controller.isDone(IOException("reset"), objectExists = false) shouldBe false
    }

    @Test
    fun `a 404 while the pod still exists is retried`() {
        val calls = LinkedBlockingQueue<WorkItem>()
        var first = true
        val controller =
            Controller(1, {
                calls += it
                if (first) {
                    first = false
                    throw KubernetesClientException("warmupruns not found", 404, null)
                }
                null
            }, { true })
        controller.enqueuePod("ns", "p")
        controller.startWhen(CompletableFuture.completedFuture(null))
        calls.poll(10, TimeUnit.SECONDS) shouldBe pod
        calls.poll(10, TimeUnit.SECONDS) shouldBe pod
        controller.stop()
    }
}
