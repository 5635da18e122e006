package dev.danki.sample.routes

import dev.danki.sample.db.Database
import dev.danki.sample.metrics.ServiceMetrics
import dev.danki.sample.threads.ThreadCensus
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/** Prometheus text format 0.0.4, what every scraper accepts. */
private val PROMETHEUS_TEXT = ContentType.parse("text/plain; version=0.0.4; charset=utf-8")

/** Liveness, readiness (the database answers) and Prometheus metrics. */
fun Route.healthRoutes(database: Database, metrics: ServiceMetrics, threadCensus: ThreadCensus) {
    get("/healthz") { call.respondText("ok\n") }
    get("/readyz") {
        val reachable = withContext(Dispatchers.IO) { database.isReachable() }
        if (reachable) {
            call.respondText("ready\n")
        } else {
            call.respondText("database unreachable\n", status = HttpStatusCode.ServiceUnavailable)
        }
    }
    get("/metrics") {
        metrics.updateThreads(threadCensus.take())
        call.respondText(metrics.scrape(), PROMETHEUS_TEXT)
    }
}
