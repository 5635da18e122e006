package dev.danki.sample.routes

import dev.danki.sample.fanout.DownstreamUrl
import dev.danki.sample.fanout.FanOut
import dev.danki.sample.fanout.FanOutMode
import io.ktor.server.plugins.BadRequestException
import io.ktor.server.response.respond
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.get
import kotlinx.coroutines.delay

private const val MAX_FANOUT = 1000
private const val DEFAULT_FANOUT = 200
private const val MAX_SLOW_MS = 60_000
private const val DEFAULT_SLOW_MS = 3000

/**
 * `/fanout` calls a slow downstream n times at once (experiment 3); `/slow` is that downstream,
 * answering after `ms` without holding a thread.
 */
fun Route.fanOutRoutes(fanOut: FanOut, selfBaseUrl: String) {
    get("/fanout") {
        val n = call.intQuery("n", 1..MAX_FANOUT, DEFAULT_FANOUT)
        val modeName = call.request.queryParameters["mode"] ?: "blocking"
        val mode =
            FanOutMode.entries.firstOrNull { it.name.equals(modeName, ignoreCase = true) }
                ?: throw BadRequestException("mode '$modeName': expected blocking or nonblocking")
        val downstreamRaw = call.request.queryParameters["downstream"] ?: "$selfBaseUrl/slow?ms=$DEFAULT_SLOW_MS"
        val downstream =
            DownstreamUrl.parse(downstreamRaw).getOrElse { throw BadRequestException(it.message ?: "bad downstream") }
        call.respond(fanOut.run(n, mode, downstream))
    }
    get("/slow") {
        val ms = call.intQuery("ms", 0..MAX_SLOW_MS, DEFAULT_SLOW_MS)
        delay(ms.toLong())
        call.respondText("slept $ms ms\n")
    }
}
