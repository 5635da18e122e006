package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.utils.KubernetesSerialization
import io.kotest.assertions.withClue
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.ints.shouldBeLessThanOrEqual
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * A burst of admissions for Deployments the cache has not seen does not starve the others (issue 48,
 * hole 6), on the webhook's real HTTPS server. 200 pods of 100 new Deployments arrive at once, and
 * their reads past the cache hang (an API server that does not answer); meanwhile pods of a Deployment
 * the cache shows opted in must still be answered, each with the gate, long before those reads give
 * up. The pods of one new Deployment share one read.
 */
class AdmissionBurstTest {
    private val keys = ServingKeys()
    private val metrics = WarmupMetrics()
    private val json = ObjectMapper()

    /** The API server: holds every read until [answer] opens, and counts the reads per Deployment. */
    private val answer = CountDownLatch(1)
    private val readsOf = ConcurrentHashMap<String, AtomicInteger>()
    private val api =
        object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String): Deployment? {
                readsOf.computeIfAbsent(name) { AtomicInteger() }.incrementAndGet()
                answer.await(HANG_SECONDS, TimeUnit.SECONDS)
                return null
            }

            override fun namespaceLabels(namespace: String) = emptyMap<String, String>()
        }

    /** The informer cache: `shop/exam` opted in, nothing else; counts the new Deployments' pods looked up. */
    private val looked = AtomicInteger()
    private val cache =
        object : OptInLookup.Reads by OptedInExam.reads {
            override fun deployment(namespace: String, name: String): Deployment? {
                if (name.startsWith("new-")) looked.incrementAndGet()
                return OptedInExam.reads.deployment(namespace, name)
            }
        }
    private val lookup = OptInLookup(cache, api, metrics, namespaceOptIn = false, budget = BUDGET)
    private val server = WebhookServer(0, keys, PodAdmission(metrics, lookup, KubernetesSerialization()))

    @AfterEach
    fun stop() {
        answer.countDown()
        server.stop()
        lookup.close()
    }

    private fun review(deployment: String, uid: String): HttpRequest =
        HttpRequest
            .newBuilder(URI("https://localhost:${server.port}${WebhookServer.PATH}"))
            .timeout(Duration.ofSeconds(HANG_SECONDS))
            .POST(HttpRequest.BodyPublishers.ofString(OptedInExam.podCreateReview(deployment, uid)))
            .build()

    private fun gated(response: HttpResponse<String>): Boolean {
        val answer = json.readValue(response.body(), Map::class.java)["response"] as Map<*, *>
        return answer["allowed"] == true && answer["patch"] != null
    }

    @Test
    fun `pods of an opted-in Deployment are gated at once while 200 pods of 100 new ones wait for their reads`() {
        val now = Instant.now()
        val ca = Certificates.newCa(now, Duration.ofHours(1))
        keys.load(Certificates.newServing(ca, listOf("localhost"), now, Duration.ofMinutes(10)))
        server.start()
        val client =
            HttpClient
                .newBuilder()
                .sslContext(Certificates.clientTrusting(ca.certificate))
                // 200 TLS handshakes at once on a loaded 2-core machine can take longer than a few seconds;
                // what is judged is when the hits are answered, not how fast the burst connects
                .connectTimeout(Duration.ofSeconds(HANG_SECONDS))
                .build()
        val burst =
            (0 until BURST).map { i ->
                client.sendAsync(review("new-${i % DEPLOYMENTS}", "burst-$i"), HttpResponse.BodyHandlers.ofString())
            }
        // the burst's pods are all being looked up (their reads under way, or refused) before the others come
        val settled = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS)
        while (looked.get() < BURST && System.nanoTime() < settled) Thread.sleep(POLL_MILLIS)

        val hits =
            (0 until HITS).map { i -> client.sendAsync(review("exam", "hit-$i"), HttpResponse.BodyHandlers.ofString()) }
        withClue("the opted-in Deployment's pods, answered while every read past the cache still hangs") {
            CompletableFuture
                .allOf(*hits.toTypedArray())
                .completeOnTimeout(null, HITS_WITHIN_SECONDS, TimeUnit.SECONDS)
                .join()
            hits.filter { it.isDone } shouldHaveSize HITS
            hits.count { gated(it.join()) } shouldBe HITS
            answer.count shouldBe 1L
        }

        answer.countDown()
        val answers = burst.map { it.get(HANG_SECONDS, TimeUnit.SECONDS) }
        answers.count { it.statusCode() == 200 } shouldBe BURST
        withClue("reads per new Deployment: its pods share one") {
            readsOf.values.maxOf { it.get() } shouldBeLessThanOrEqual 1
        }
    }

    private companion object {
        const val BURST = 200
        const val DEPLOYMENTS = 100
        const val HITS = 20
        const val SETTLE_SECONDS = 10L
        const val POLL_MILLIS = 20L
        const val HITS_WITHIN_SECONDS = 3L
        const val HANG_SECONDS = 30L

        /** The chart's default: half of the webhook's 10 s timeout. */
        val BUDGET: Duration = Duration.ofSeconds(5)
    }
}
