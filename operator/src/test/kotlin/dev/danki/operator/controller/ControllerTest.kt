package dev.danki.operator.controller

import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import java.io.IOException
import java.util.concurrent.CancellationException
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
    fun `caches that fail to sync are a problem the health check reports`() {
        val controller = Controller(1, { null }, { true })
        controller.problem() shouldBe null
        controller.startWhen(CompletableFuture.failedFuture<Void>(IllegalStateException("no CRD")))
        controller.problem()!! shouldContain "informer caches did not sync: no CRD"
        controller.stop()
    }

    @Test
    fun `a cancellation thrown by one reconcile ends neither the worker nor the item's retries`() {
        val calls = LinkedBlockingQueue<WorkItem>()
        var first = true
        val controller =
            Controller(1, {
                calls += it
                if (first) {
                    first = false
                    throw CancellationException("a future inside the reconcile was cancelled")
                }
                null
            }, { true })
        controller.enqueuePod("ns", "p")
        controller.startWhen(CompletableFuture.completedFuture(null))
        calls.poll(10, TimeUnit.SECONDS) shouldBe pod
        // requeued after back-off, on the same (still living) worker
        calls.poll(10, TimeUnit.SECONDS) shouldBe pod
        controller.enqueuePod("ns", "q")
        calls.poll(10, TimeUnit.SECONDS) shouldBe WorkItem(WorkItem.Kind.POD, "ns", "q")
        controller.problem() shouldBe null
        controller.stop()
    }

    @Test
    fun `a worker that ends anyway is a problem the health check reports`() {
        val controller = Controller(1, { throw StackOverflowError("deep") }, { true })
        controller.enqueuePod("ns", "p")
        controller.startWhen(CompletableFuture.completedFuture(null))
        eventuallyTrue { controller.problem() != null }
        controller.problem()!! shouldContain "reconcile workers ended: reconcile-0"
        controller.stop()
    }

    private fun eventuallyTrue(check: () -> Boolean) {
        val end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
        while (!check() && System.nanoTime() < end) Thread.sleep(20)
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
