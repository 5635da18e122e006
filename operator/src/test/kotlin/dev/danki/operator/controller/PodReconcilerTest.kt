package dev.danki.operator.controller

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.Keys
import dev.danki.operator.testkit.readyGatedPod
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupPools
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.javaoperatorsdk.operator.api.reconciler.Context
import io.kotest.matchers.longs.shouldBeInRange
import io.kotest.matchers.shouldBe
import io.mockk.every
import io.mockk.mockk
import io.mockk.verify
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

/** The pod reconciler on a fake context and clock: a crashed warm-up and its back-off. */
class PodReconcilerTest {
    private var clock = Instant.parse("2026-11-26T00:00:00Z")
    private val completions = WarmupCompletions { clock }
    private val pod = readyGatedPod()
    private var podInCache: Pod? = pod
    private val caches =
        mockk<Caches> {
            every { pods.get("shop", "web-1") } answers { podInCache }
            every { runsOf(any(), any()) } returns emptyList()
            every { namespaceLabels(any()) } returns emptyMap()
        }
    private val recorder =
        mockk<RunRecorder> {
            every { finalStatus(any()) } returns null
        }
    private val actions =
        mockk<RunActions>(relaxed = true) { every { start(any(), any()) } returns Duration.ofMinutes(5) }
    private val reconciler =
        PodReconciler(
            OperatorConfig(),
            caches,
            PlanParser(FailurePolicy.OPEN),
            recorder,
            mockk<WarmupPools>(relaxed = true),
            actions,
            completions,
        ) { _, _ -> null }
    private val context = mockk<Context<Pod>> { every { isPrimaryResourceDeleted } returns false }

    /** Reconciles the pod; when the reconciler asks to look again, in milliseconds. */
    private fun reconcile(): Long? = reconciler.reconcile(pod, context).scheduleDelay.orElse(null)

    private fun crash() = completions.finished("shop/web-1", IllegalStateException("k6 binary vanished"))

    @Test
    fun `a crashed warm-up starts again only after its own back-off, which doubles`() {
        crash()
        val first = reconcile()!!
        first shouldBeInRange 1_000L..1_200L
        clock = clock.plusMillis(first - 1)
        reconcile() shouldBe 1L
        verify(exactly = 0) { actions.start(any(), any()) }
        clock = clock.plusMillis(1)
        reconcile()
        verify(exactly = 1) { actions.start(any(), any()) }
        crash()
        reconcile()!! shouldBeInRange 2_000L..2_400L
        verify(exactly = 1) { actions.start(any(), any()) }
    }

    @Test
    fun `the back-off stops doubling at five minutes, and a warm-up that ends resets it`() {
        repeat(12) { crash() }
        reconcile() shouldBe Duration.ofMinutes(5).toMillis()
        completions.finished("shop/web-1", null)
        reconcile()
        verify(exactly = 1) { actions.start(any(), any()) }
        crash()
        reconcile()!! shouldBeInRange 1_000L..1_200L
    }

    @Test
    fun `a pod that is gone leaves no back-off behind`() {
        repeat(3) { crash() }
        podInCache = null
        reconcile() shouldBe null
        podInCache = pod
        reconcile()
        verify(exactly = 1) { actions.start(any(), any()) }
    }

    @Test
    fun `a pod whose Deployment is not cached yet waits for it instead of warming with the defaults`() {
        val owned = readyGatedPod(owner = "web-5bf4d59dc", created = Instant.now())
        podInCache = owned
        var deployment: Deployment? = null
        every { caches.deployments.get("shop", "web") } answers { deployment }
        reconciler.reconcile(owned, context).scheduleDelay.orElse(null) shouldBe 1_000L
        verify(exactly = 0) { actions.start(any(), any()) }
        deployment =
            DeploymentBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .addToAnnotations(Keys.Annotations.WARMUP, Keys.Annotations.ENABLED)
                .endMetadata()
                .build()
        reconciler.reconcile(owned, context)
        verify(exactly = 1) { actions.start(any(), any()) }
    }

    @Test
    fun `a pod whose Deployment stays missing past the grace is decided without it`() {
        val old = readyGatedPod(owner = "web-5bf4d59dc", created = Instant.now().minus(PodReconciler.OWNER_CACHE_GRACE))
        podInCache = old
        every { caches.deployments.get("shop", "web") } returns null
        reconciler.reconcile(old, context)
        verify(exactly = 1) { actions.start(any(), any()) }
    }
}
