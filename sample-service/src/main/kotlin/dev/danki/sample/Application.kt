package dev.danki.sample

import dev.danki.sample.exam.ValidationErrors
import dev.danki.sample.metrics.RequestMetrics
import dev.danki.sample.routes.authRoutes
import dev.danki.sample.routes.examRoutes
import dev.danki.sample.routes.fanOutRoutes
import dev.danki.sample.routes.healthRoutes
import dev.danki.sample.routes.sleepRoutes
import dev.danki.sample.routes.threadRoutes
import io.ktor.http.HttpStatusCode
import io.ktor.serialization.kotlinx.json.json
import io.ktor.server.application.Application
import io.ktor.server.application.install
import io.ktor.server.plugins.BadRequestException
import io.ktor.server.plugins.contentnegotiation.ContentNegotiation
import io.ktor.server.plugins.statuspages.StatusPages
import io.ktor.server.response.respond
import io.ktor.server.routing.routing
import kotlinx.coroutines.CancellationException
import org.slf4j.LoggerFactory

private val log = LoggerFactory.getLogger("dev.danki.sample.Application")

/** How deep into a 400's cause chain the response looks for the message that names the bad field. */
private const val MAX_CAUSES = 4

/** The whole service: plugins and every route group, wired to [deps]. */
fun Application.module(deps: ServiceDependencies) {
    install(ContentNegotiation) { json() }
    install(RequestMetrics) { metrics = deps.metrics }
    install(StatusPages) {
        exception<BadRequestException> { call, cause ->
            // the causes say which field of a malformed JSON body was wrong
            val detail =
                generateSequence<Throwable>(cause) { it.cause }
                    .take(MAX_CAUSES)
                    .mapNotNull { it.message }
                    .distinct()
                    .toList()
            call.respond(HttpStatusCode.BadRequest, ValidationErrors(detail))
        }
        exception<Throwable> { call, cause ->
            if (cause is CancellationException) throw cause
            log
                .atError()
                .addKeyValue("path", call.request.local.uri)
                .setCause(cause)
                .log("request failed")
            val body = ValidationErrors(listOf("internal error: ${cause.javaClass.simpleName}"))
            call.respond(HttpStatusCode.InternalServerError, body)
        }
    }
    routing {
        healthRoutes(deps.database, deps.metrics, deps.threadCensus)
        sleepRoutes(deps.sleepQuery)
        fanOutRoutes(deps.fanOut, deps.selfBaseUrl)
        threadRoutes(deps.threadCensus, deps.relay)
        examRoutes(deps.exams)
        authRoutes(deps.tokens)
    }
}
