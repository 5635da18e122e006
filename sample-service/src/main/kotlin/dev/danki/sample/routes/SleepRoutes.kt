package dev.danki.sample.routes

import dev.danki.sample.db.SleepQuery
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.RoutingCall
import io.ktor.server.routing.get
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.slf4j.LoggerFactory

private val log = LoggerFactory.getLogger("dev.danki.sample.routes.sleep")
private const val NANOS_PER_MS = 1_000_000L

/**
 * `SELECT pg_sleep(:seconds)` four ways: on the request thread (blocks its event loop), inside
 * `withContext(Dispatchers.IO)` (frees it), and the runBlocking vs withContext pair of experiment 2.
 */
fun Route.sleepRoutes(sleepQuery: SleepQuery) {
    get("/sleep-sync/{seconds}") {
        // deliberately blocking: every request queued on this event-loop thread waits
        call.sleepAndRespond("/sleep-sync") { seconds -> sleepOnCurrentThread(sleepQuery, seconds) }
    }
    get("/sleep-async/{seconds}") {
        call.sleepAndRespond("/sleep-async") { seconds ->
            withContext(Dispatchers.IO) { sleepOnCurrentThread(sleepQuery, seconds) }
        }
    }
    get("/runblocking/{seconds}") {
        // deliberately wrong: runBlocking parks the request thread until the IO work ends
        call.sleepAndRespond("/runblocking") { seconds ->
            runBlocking(Dispatchers.IO) { sleepOnCurrentThread(sleepQuery, seconds) }
        }
    }
    get("/withcontext/{seconds}") {
        call.sleepAndRespond("/withcontext") { seconds ->
            withContext(Dispatchers.IO) { sleepOnCurrentThread(sleepQuery, seconds) }
        }
    }
}

/** Runs the query on the calling thread and returns that thread's name. */
private fun sleepOnCurrentThread(sleepQuery: SleepQuery, seconds: Double): String {
    sleepQuery.sleep(seconds)
    return currentThreadName()
}

/** The OS thread's name, without the ` @coroutine#N` suffix that coroutine debug mode (-ea) appends. */
private fun currentThreadName(): String = Thread.currentThread().name.substringBefore(" @")

private suspend fun RoutingCall.sleepAndRespond(route: String, sleep: suspend (Double) -> String) {
    val seconds = sleepSeconds()
    val requestThread = currentThreadName()
    val started = System.nanoTime()
    val queryThread = sleep(seconds)
    val elapsedMs = (System.nanoTime() - started) / NANOS_PER_MS
    log
        .atInfo()
        .addKeyValue("route", route)
        .addKeyValue("seconds", seconds)
        .addKeyValue("queryThread", queryThread)
        .addKeyValue("ms", elapsedMs)
        .log("sleep finished")
    respond(SleepResult(route, seconds, requestThread, queryThread, elapsedMs))
}
