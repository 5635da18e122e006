package dev.danki.operator

import dev.danki.operator.metrics.BoostMetrics
import dev.danki.operator.metrics.HttpEndpoints
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.K6SummaryParser
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import org.junit.jupiter.api.Test
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

class MetricsTest {
    private val http = HttpClient.newHttpClient()

    private fun get(port: Int, path: String) =
        http.send(
            HttpRequest.newBuilder(URI("http://127.0.0.1:$port$path")).build(),
            HttpResponse.BodyHandlers.ofString(),
        )

    @Test
    fun `metrics, healthz and readyz share one port and no series names a pod`() {
        val metrics = WarmupMetrics()
        val summary = K6SummaryParser.parse(javaClass.getResource("/k6/summary-converged.json")!!.readText())
        metrics.resultMeasured("shop", "exam-warm", summary)
        metrics.runFinished("shop", "exam-warm", WarmupMetrics.SUCCEEDED, 12.5)
        metrics.poolChanged(running = 2, waiting = 3)
        metrics.gatePatched(0.004)
        BoostMetrics(metrics.registry).ended("restored")
        var ready = false
        var problem: String? = null
        val endpoints = HttpEndpoints(0, metrics, { problem }) { ready }
        endpoints.start()
        try {
            val text = get(endpoints.port, "/metrics").body()
            text shouldContain
                "danki_warmup_runs_total{deployment=\"exam-warm\",namespace=\"shop\",result=\"succeeded\"} 1.0"
            text shouldContain
                "danki_warmup_latency_seconds{deployment=\"exam-warm\",namespace=\"shop\"," +
                "phase=\"cold\",quantile=\"0.95\"} 0.10975601654999995"
            text shouldContain
                "danki_warmup_requests_total{deployment=\"exam-warm\",namespace=\"shop\",phase=\"warmup\"} 1513.0"
            text shouldContain "danki_warmup_duration_seconds_count{deployment=\"exam-warm\",namespace=\"shop\"} 1"
            text shouldContain
                "danki_warmup_stops_total{deployment=\"exam-warm\",namespace=\"shop\",reason=\"Converged\"} 1.0"
            text shouldContain "danki_warmups_in_progress 2.0"
            text shouldContain "danki_warmups_queued 3.0"
            text shouldContain "danki_gate_patch_duration_seconds_bucket{le=\"0.005\"} 1"
            text shouldContain "danki_gate_patch_duration_seconds_count 1"
            text shouldContain "danki_cpu_boosts_total{result=\"restored\"} 1.0"
            text shouldContain "result (succeeded, failed_open, failed_closed)."
            text shouldNotContain "pod="
            get(endpoints.port, "/healthz").statusCode() shouldBe 200
            get(endpoints.port, "/readyz").statusCode() shouldBe 503
            ready = true
            get(endpoints.port, "/readyz").statusCode() shouldBe 200
            // a problem only a restart mends fails both, saying what it is
            problem = "WarmupRuns informer stopped: 404"
            for (path in listOf("/healthz", "/readyz")) {
                val answer = get(endpoints.port, path)
                answer.statusCode() shouldBe 503
                answer.body() shouldContain "WarmupRuns informer stopped: 404"
            }
            problem = null
            metrics.deploymentGone("shop", "exam-warm", deleted = false)
            get(endpoints.port, "/metrics").body() shouldNotContain "danki_warmup_latency_seconds{"
        } finally {
            endpoints.stop()
        }
    }

    @Test
    fun `the page names the build's version in danki_build_info`() {
        text(WarmupMetrics()).lines() shouldContain "danki_build_info{version=\"${BuildInfo.version}\"} 1"
    }

    @Test
    fun `a deleted Deployment's series are all removed, and only its own`() {
        val metrics = WarmupMetrics()
        val summary = K6SummaryParser.parse(javaClass.getResource("/k6/summary-converged.json")!!.readText())
        for (deployment in listOf("exam-warm", "exam-warmer")) {
            metrics.resultMeasured("shop", deployment, summary)
            metrics.runFinished("shop", deployment, WarmupMetrics.SUCCEEDED, 12.5)
            metrics.runFailed("shop", deployment, "Timeout")
            metrics.podNotGated("shop", deployment)
            metrics.ungatedPodReplaced("shop", deployment)
        }
        metrics.runFinished("other", "exam-warm", WarmupMetrics.SUCCEEDED, 1.0)

        metrics.deploymentGone("shop", "exam-warm", deleted = true)

        val series = text(metrics).lines().filter { it.startsWith("danki_") }
        series.filter { "namespace=\"shop\"" in it && "deployment=\"exam-warm\"" in it } shouldBe emptyList()
        // every per-Deployment family, counters and the histogram's count among them, stay for the others
        for (family in PER_DEPLOYMENT) {
            series.any { it.startsWith(family) && "deployment=\"exam-warmer\"" in it } shouldBe true
        }
        series.any { "namespace=\"other\"" in it && "deployment=\"exam-warm\"" in it } shouldBe true
    }

    private fun text(metrics: WarmupMetrics): String {
        val endpoints = HttpEndpoints(0, metrics, { null }) { true }
        endpoints.start()
        return try {
            get(endpoints.port, "/metrics").body()
        } finally {
            endpoints.stop()
        }
    }

    private companion object {
        val PER_DEPLOYMENT =
            listOf(
                "danki_warmup_runs_total",
                "danki_warmup_failures_total",
                "danki_warmup_duration_seconds_count",
                "danki_warmup_latency_seconds",
                "danki_warmup_requests_total",
                "danki_warmup_stops_total",
                "danki_webhook_ungated_pods_total",
                "danki_webhook_ungated_pods_replaced_total",
            )
    }
}
