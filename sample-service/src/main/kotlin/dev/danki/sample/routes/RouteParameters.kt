package dev.danki.sample.routes

import io.ktor.server.plugins.BadRequestException
import io.ktor.server.routing.RoutingCall

/** Longest sleep a route accepts: the head-of-line experiment needs 20 s. */
internal const val MAX_SLEEP_SECONDS = 120.0

/** The `{seconds}` path parameter, 0..[MAX_SLEEP_SECONDS], or a 400 naming the bad value. */
internal fun RoutingCall.sleepSeconds(): Double {
    val raw = parameters["seconds"]
    return raw?.toDoubleOrNull()?.takeIf { it.isFinite() && it in 0.0..MAX_SLEEP_SECONDS }
        ?: throw BadRequestException("seconds '$raw': expected a number from 0 to $MAX_SLEEP_SECONDS")
}

/** Query parameter [name] as a whole number in [range], [default] when absent, or a 400. */
internal fun RoutingCall.intQuery(name: String, range: IntRange, default: Int): Int {
    val raw = request.queryParameters[name] ?: return default
    val value = raw.toIntOrNull()
    if (value == null || value !in range) {
        throw BadRequestException("$name '$raw': expected a whole number in ${range.first}..${range.last}")
    }
    return value
}
