package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.javaoperatorsdk.operator.health.InformerHealthIndicator
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator
import io.javaoperatorsdk.operator.health.Status
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.string.shouldContain
import io.mockk.every
import io.mockk.mockk
import org.junit.jupiter.api.Test
import java.time.Instant
import java.util.Optional

/**
 * An informer that cannot list (its resource's CRD is not installed, as when the chart's CRD is missing
 * at start-up) is reported by `/healthz` once the start-up grace has passed; one that lists is not, nor
 * one that listed once and is reconnecting its watch (an API server restart).
 */
class CacheTest {
    private val deadline = Instant.parse("2026-11-25T12:00:15Z")
    private val after = deadline.plusSeconds(1)

    private fun informer(synced: Boolean, watching: Boolean, namespace: String? = "tenant") =
        object : InformerHealthIndicator {
            override fun hasSynced() = synced

            override fun isWatching() = watching

            override fun isRunning() = true

            override fun getStatus() = if (synced && watching) Status.HEALTHY else Status.UNHEALTHY

            override fun getTargetNamespace() = namespace
        }

    @Test
    fun `an informer that never listed is a problem that names it, where, and the likely cause`() {
        val problem =
            Cache.problemOf(
                "WarmupRuns",
                listOf(informer(synced = false, watching = false)),
                deadline,
                after,
            )!!
        problem shouldContain "WarmupRuns informer has not synced (tenant)"
        problem shouldContain "(is the resource's CRD installed?)"
    }

    @Test
    fun `nothing is reported during the start-up grace`() {
        Cache
            .problemOf(
                "WarmupRuns",
                listOf(informer(synced = false, watching = false)),
                deadline,
                deadline.minusSeconds(1),
            ).shouldBeNull()
    }

    @Test
    fun `an informer that listed once is no problem while its watch reconnects`() {
        Cache.problemOf("Pods", listOf(informer(synced = true, watching = false)), deadline, after).shouldBeNull()
        Cache.problemOf("Pods", listOf(informer(synced = true, watching = true)), deadline, after).shouldBeNull()
    }

    @Test
    fun `an informer on all namespaces says so`() {
        Cache
            .problemOf("Pods", listOf(informer(synced = false, watching = false, namespace = null)), deadline, after)!!
            .shouldContain("(all namespaces)")
    }

    @Test
    fun `an informer of any controller counts, the Deployment controller's own included`() {
        val stuck =
            object : InformerWrappingEventSourceHealthIndicator<Deployment> {
                override fun informerHealthIndicators() = mapOf("tenant" to informer(synced = false, watching = false))
            }
        val healthy =
            object : InformerWrappingEventSourceHealthIndicator<Pod> {
                override fun informerHealthIndicators() = mapOf("tenant" to informer(synced = true, watching = true))
            }
        val caches = Caches()
        val unhealthy =
            mapOf(
                "podreconciler" to mapOf("pods" to healthy),
                "deploymentreconciler" to mapOf("deployments" to stuck),
            )
        caches.problem(unhealthy, Instant.now().plus(Caches.SYNC_GRACE).plusSeconds(1))!! shouldContain
            "deployments (controller deploymentreconciler) informer has not synced (tenant)"
        caches.problem(unhealthy, Instant.now()).shouldBeNull()
        caches.problem(emptyMap(), Instant.now().plus(Caches.SYNC_GRACE).plusSeconds(1)).shouldBeNull()
    }

    @Test
    fun `an informer JOSDK has not started yet reads as a miss, not as JOSDK's error`() {
        // JOSDK makes the informer's temporary cache on start; before that its get throws, and the webhook
        // serves its own warm-up while the informers start
        val source =
            mockk<InformerEventSource<Deployment, Pod>> {
                every { isRunning } returns false
                every { get(any<ResourceID>()) } throws NullPointerException("temporaryResourceCache is null")
            }
        val cache = Cache<Deployment>("Deployments").apply { bind(source) }
        cache.find("shop", "exam").shouldBeNull()
        every { source.isRunning } returns true
        every { source.get(any<ResourceID>()) } returns Optional.empty()
        cache.find("shop", "exam").shouldBeNull()
    }
}
