package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.testkit.counter
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference

/** Which source answers, and that a read past the cache never holds a pod past its budget. */
class OptInLookupTest {
    private val metrics = WarmupMetrics()

    private fun deployment(annotations: Map<String, String>): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("shop")
            .withAnnotations<String, String>(annotations)
            .endMetadata()
            .build()

    private val optedIn = deployment(mapOf(Keys.Annotations.WARMUP to "enabled"))
    private val plain = deployment(emptyMap())

    /** A source holding [deployment] and [labels], counting its reads; [read] runs before each. */
    private class Source(
        val deployment: Deployment?,
        val labels: Map<String, String>? = null,
        val read: () -> Unit = {},
    ) : OptInLookup.Reads {
        val reads = AtomicInteger()

        override fun deployment(namespace: String, name: String): Deployment? {
            reads.incrementAndGet()
            read()
            return deployment
        }

        override fun namespaceLabels(namespace: String): Map<String, String>? {
            reads.incrementAndGet()
            read()
            return labels
        }
    }

    private fun lookup(cache: OptInLookup.Reads, api: Source, budget: Duration = Duration.ofSeconds(1)) =
        OptInLookup(cache, api, metrics, namespaceOptIn = true, budget = budget)

    private fun reads(result: String) = metrics.counter("danki_webhook_api_reads_total", "result", result)

    @Test
    fun `a cache that shows the Deployment opted in answers alone`() {
        val api = Source(optedIn)
        val found = lookup(Source(optedIn), api).find("shop", "exam")

        found.how shouldBe WarmupMetrics.LOOKUP_CACHE
        found.deployment shouldBe optedIn
        api.reads.get() shouldBe 0
    }

    @Test
    fun `a Deployment the cache has not seen yet is read from the API server`() {
        val found = lookup(Source(null), Source(optedIn)).find("shop", "exam")

        found.how shouldBe WarmupMetrics.LOOKUP_API
        found.deployment shouldBe optedIn
        reads(WarmupMetrics.READ_FOUND) shouldBe 1.0
    }

    @Test
    fun `a cache behind an opt-in is read past`() {
        val found = lookup(Source(plain), Source(optedIn)).find("shop", "exam")

        found.deployment shouldBe optedIn
    }

    @Test
    fun `a namespace labelled a moment ago is read too, when the Deployment has no annotation`() {
        val label = mapOf(Keys.NAMESPACE_OPT_IN_LABEL to Keys.WARMUP_LABEL_VALUE)
        val found = lookup(Source(null, labels = emptyMap()), Source(plain, labels = label)).find("shop", "exam")

        found.deployment shouldBe plain
        found.namespaceLabels shouldBe label
    }

    @Test
    fun `the namespace is not read when the Deployment's own annotation decides`() {
        val api = Source(deployment(mapOf(Keys.Annotations.WARMUP to "disabled")), labels = emptyMap())
        lookup(Source(null, labels = emptyMap()), api).find("shop", "exam")

        api.reads.get() shouldBe 1
    }

    @Test
    fun `a read that fails lets the pod through, counted`() {
        val failing = Source(optedIn) { throw KubernetesClientException("connection refused") }
        val found = lookup(Source(null), failing).find("shop", "exam")

        found.how shouldBe WarmupMetrics.LOOKUP_FAILED
        found.deployment shouldBe null
        reads(WarmupMetrics.READ_FAILED) shouldBe 1.0
    }

    @Test
    fun `a cache that caught up while the read hung still gates the pod`() {
        val cachedNow = AtomicReference<Deployment?>(null)
        val cache =
            object : OptInLookup.Reads {
                override fun deployment(namespace: String, name: String) = cachedNow.get()

                override fun namespaceLabels(namespace: String) = emptyMap<String, String>()
            }
        val hanging =
            Source(optedIn) {
                cachedNow.set(optedIn)
                Thread.sleep(10_000)
            }
        val found = lookup(cache, hanging, budget = Duration.ofMillis(200)).find("shop", "exam")

        found.how shouldBe WarmupMetrics.LOOKUP_CACHE
        found.deployment shouldBe optedIn
        reads(WarmupMetrics.READ_FAILED) shouldBe 1.0
    }

    @Test
    fun `a read that hangs is given up at the budget`() {
        val hanging = Source(optedIn) { Thread.sleep(10_000) }
        val started = System.nanoTime()
        val found = lookup(Source(null), hanging, budget = Duration.ofMillis(200)).find("shop", "exam")
        val took = Duration.ofNanos(System.nanoTime() - started)

        found.how shouldBe WarmupMetrics.LOOKUP_FAILED
        // generous: only that the answer came near the budget, not after the 10 s read
        (took < Duration.ofSeconds(5)) shouldBe true
    }
}
