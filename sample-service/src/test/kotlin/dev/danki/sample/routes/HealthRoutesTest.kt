package dev.danki.sample.routes

import dev.danki.sample.TestServices
import io.ktor.client.request.get
import io.ktor.client.request.header
import io.ktor.client.statement.bodyAsText
import io.ktor.http.HttpStatusCode
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class HealthRoutesTest {
    @Test
    fun `healthz and readyz answer ok with a reachable database`() =
        TestServices.withService { client ->
            assertEquals(HttpStatusCode.OK, client.get("/healthz").status)
            val ready = client.get("/readyz")
            assertEquals(HttpStatusCode.OK, ready.status)
            assertEquals("ready\n", ready.bodyAsText())
        }

    @Test
    fun `readyz fails once the database is gone`() {
        val deps = TestServices.dependencies()
        TestServices.withService(deps) { client ->
            deps.database.close()
            assertEquals(HttpStatusCode.ServiceUnavailable, client.get("/readyz").status)
        }
    }

    @Test
    fun `metrics are in Prometheus format with JVM, pool and thread meters`() =
        TestServices.withService { client ->
            client.get("/exams/1")
            val response = client.get("/metrics")
            val body = response.bodyAsText()

            assertTrue(response.headers["Content-Type"]!!.startsWith("text/plain"))
            assertTrue(body.contains("# TYPE danki_sample_http_server_requests_seconds histogram"), body.take(500))
            val labels = """{method="GET",route="/exams/{id}",status="200""""
            val examBucket = "danki_sample_http_server_requests_seconds_bucket$labels"
            assertTrue(body.contains(examBucket))
            assertTrue(body.contains("jvm_memory_used_bytes"))
            assertTrue(body.contains("hikaricp_connections"))
            assertTrue(body.contains("danki_sample_pool_threads{pool="))
            assertTrue(body.contains("danki_sample_reserved_thread_stack_bytes"))
        }

    @Test
    fun `warm-up requests are counted apart from business requests`() =
        TestServices.withService { client ->
            client.get("/exams/2") { header("X-Danki-Warmup", "1") }
            val body = client.get("/metrics").bodyAsText()

            val warmupCount =
                "danki_sample_warmup_requests_total" + """{method="GET",route="/exams/{id}",status="200"} 1.0"""
            val businessCount = """danki_sample_http_server_requests_seconds_count{method="GET",route="/exams/{id}""""
            assertTrue(body.contains(warmupCount), body)
            assertFalse(body.contains(businessCount))
        }
}
