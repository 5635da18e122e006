package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.testkit.counter
import io.fabric8.kubernetes.client.utils.KubernetesSerialization
import io.kotest.matchers.comparables.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.time.Instant
import java.util.Base64

/** The webhook's real HTTPS server on loopback, called as the API server calls it, trusting only danki's CA. */
class WebhookServerTest {
    private val keys = ServingKeys()
    private val metrics = WarmupMetrics()
    private val server =
        WebhookServer(
            0,
            keys,
            PodAdmission(
                metrics,
                OptedInExam.lookup(metrics),
                KubernetesSerialization(),
            ),
        )
    private val names = listOf("localhost")
    private val json = ObjectMapper()

    @AfterEach
    fun stop() = server.stop()

    private fun clientTrusting(ca: KeyMaterial): HttpClient {
        val tls = Certificates.clientTrusting(ca.certificate)
        return HttpClient
            .newBuilder()
            .sslContext(tls)
            .connectTimeout(Duration.ofSeconds(5))
            .build()
    }

    private fun review(client: HttpClient): Map<*, *> {
        val request =
            HttpRequest
                .newBuilder(URI("https://localhost:${server.port}${WebhookServer.PATH}"))
                .POST(HttpRequest.BodyPublishers.ofString(OptedInExam.podCreateReview()))
                .build()
        val response = client.send(request, HttpResponse.BodyHandlers.ofString())
        response.statusCode() shouldBe 200
        return json.readValue(response.body(), Map::class.java)["response"] as Map<*, *>
    }

    @Test
    fun `an opted-in Deployment's pod is allowed with the gate patch, a rotated certificate served at once`() {
        val now = Instant.now()
        val ca = Certificates.newCa(now, Duration.ofHours(1))
        val first = Certificates.newServing(ca, names, now, Duration.ofMinutes(10))
        keys.load(first)
        server.start()
        val client = clientTrusting(ca)
        val response = review(client)
        response["uid"] shouldBe "u-1"
        response["allowed"] shouldBe true
        val patch = String(Base64.getDecoder().decode(response["patch"] as String))
        patch shouldBe
            """[{"op":"add","path":"/spec/readinessGates","value":[{"conditionType":"danki.dev/warmed"}]},""" +
            """{"op":"add","path":"/metadata/labels/danki.dev~1warmup","value":"enabled"}]"""
        // a new serving certificate from a new CA: a client trusting only the new CA is served without a restart
        val newCa = Certificates.newCa(now, Duration.ofHours(1))
        keys.load(Certificates.newServing(newCa, names, now, Duration.ofMinutes(10)))
        review(clientTrusting(newCa))["allowed"] shouldBe true
    }

    @Test
    fun `the warm-up waits for a certificate, then sends its reviews through the real port`() {
        val warmup = WebhookWarmup({ server.port }, keys, "danki-system")
        server.start()
        warmup.start()
        Thread.sleep(300)
        // no certificate yet: nothing can be sent, and the replica is not ready
        warmup.done shouldBe false
        val now = Instant.now()
        keys.load(
            Certificates.newServing(Certificates.newCa(now, Duration.ofHours(1)), names, now, Duration.ofHours(1)),
        )
        val end = System.nanoTime() + Duration.ofSeconds(30).toNanos()
        while (!warmup.done && System.nanoTime() < end) Thread.sleep(50)
        warmup.done shouldBe true
        metrics.counter("danki_webhook_admissions_total", "result", WarmupMetrics.ADMITTED_UNCHANGED) shouldBe 100.0
    }

    @Test
    fun `the server keeps an idle connection longer than the API server does, so it never closes one under a review`() {
        server.start()
        // Go's http.Transport, which the API server calls webhooks with, drops idle connections after 90 s
        server.idleTimeout shouldBeGreaterThan Duration.ofSeconds(90)
    }
}
