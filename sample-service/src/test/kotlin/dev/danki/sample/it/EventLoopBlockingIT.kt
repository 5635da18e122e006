package dev.danki.sample.it

import dev.danki.sample.ServiceDependencies
import dev.danki.sample.TestServices
import dev.danki.sample.module
import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.ktor.server.netty.NettyApplicationEngine
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.jsonPrimitive
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.CompletableFuture
import kotlin.test.AfterTest
import kotlin.test.BeforeTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * On real Netty and real PostgreSQL, with one request thread: a fast request queued behind a slow
 * /sleep-sync waits for it, because pg_sleep blocks that thread; behind /sleep-async it does not.
 */
class EventLoopBlockingIT {
    private lateinit var deps: ServiceDependencies
    private lateinit var server: EmbeddedServer<NettyApplicationEngine, NettyApplicationEngine.Configuration>
    private lateinit var baseUrl: String

    // a new connection per request, so the fast request cannot ride the slow one's connection
    private val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

    @BeforeTest
    fun start() {
        deps = TestServices.dependencies(TestServices.config(PostgresUrl.require()))
        server =
            embeddedServer(Netty, configure = {
                connector {
                    host = "127.0.0.1"
                    port = 0
                }
                callGroupSize = 1
            }) { module(deps) }.start(wait = false)
        val port =
            runBlocking {
                server.engine
                    .resolvedConnectors()
                    .first()
                    .port
            }
        baseUrl = "http://127.0.0.1:$port"
        get("/sleep-sync/0") // first request pays class loading, not the measurement
    }

    @AfterTest
    fun stop() {
        server.stop(0, 1000)
        deps.close()
    }

    @Test
    fun `a fast request behind a slow sleep-sync waits for it on the same thread`() {
        val slow = sendAsync("/sleep-sync/$SLOW_SECONDS")
        Thread.sleep(HEAD_START_MS)
        val (fastMs, fastBody) = timed { get("/sleep-sync/0") }
        val slowThread = thread(slow.join().body())

        assertEquals(slowThread, thread(fastBody), "with one request thread both must run on it")
        val mustWaitMs = (SLOW_SECONDS * 1000 - HEAD_START_MS) * 0.8
        assertTrue(fastMs >= mustWaitMs, "fast request took $fastMs ms: it should have waited")
    }

    @Test
    fun `a fast request behind a slow sleep-async is served at once`() {
        val slow = sendAsync("/sleep-async/$SLOW_SECONDS")
        Thread.sleep(HEAD_START_MS)
        val (fastMs, _) = timed { get("/sleep-sync/0") }

        assertTrue(fastMs < SLOW_SECONDS * 1000 / 2, "fast request took $fastMs ms: it should not have waited")
        assertEquals(200, slow.join().statusCode())
    }

    private fun request(path: String) =
        HttpRequest
            .newBuilder(URI("$baseUrl$path"))
            .timeout(Duration.ofSeconds(30))
            .build()

    private fun get(path: String): String {
        val response = http.send(request(path), HttpResponse.BodyHandlers.ofString())
        assertEquals(200, response.statusCode(), response.body())
        return response.body()
    }

    private fun sendAsync(path: String): CompletableFuture<HttpResponse<String>> =
        http.sendAsync(request(path), HttpResponse.BodyHandlers.ofString())

    private fun thread(body: String) = TestServices.json(body)["requestThread"]!!.jsonPrimitive.content

    private fun <T> timed(block: () -> T): Pair<Long, T> {
        val started = System.nanoTime()
        val value = block()
        return (System.nanoTime() - started) / 1_000_000 to value
    }

    private companion object {
        const val SLOW_SECONDS = 3
        const val HEAD_START_MS = 500L
    }
}
