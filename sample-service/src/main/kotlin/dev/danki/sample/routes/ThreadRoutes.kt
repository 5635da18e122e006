package dev.danki.sample.routes

import dev.danki.sample.threads.Relay
import dev.danki.sample.threads.RelayMode
import dev.danki.sample.threads.ThreadCensus
import io.ktor.server.plugins.BadRequestException
import io.ktor.server.response.respond
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get

private const val MAX_RELAY_MS = 10_000
private const val DEFAULT_RELAY_MS = 1000

/**
 * `/threads` reports live threads by pool and their reserved stack; `/relay` waits on this service's
 * own `/slow` either thread-per-request or event-loop style, so `/threads` under load shows the cost (experiment 4).
 */
fun Route.threadRoutes(threadCensus: ThreadCensus, relay: Relay) {
    get("/threads") { call.respond(threadCensus.take()) }
    get("/relay") {
        val modeName = call.request.queryParameters["mode"] ?: RelayMode.EVENT_LOOP.label
        val mode =
            RelayMode.of(modeName)
                ?: throw BadRequestException(
                    "mode '$modeName': expected ${RelayMode.entries.joinToString(" or ") { it.label }}",
                )
        val ms = call.intQuery("ms", 0..MAX_RELAY_MS, DEFAULT_RELAY_MS)
        call.respondText(relay.forward(mode, ms.toLong()))
    }
}
