package dev.danki.sample.routes

import dev.danki.sample.TestServices
import dev.danki.sample.threads.ThreadCensus
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import io.ktor.http.HttpStatusCode
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ThreadRoutesTest {
    @Test
    fun `threads reports live threads by pool and their reserved stack`() =
        TestServices.withService { client ->
            val snapshot = TestServices.json(client.get("/threads").bodyAsText())
            val live = snapshot["liveThreads"]!!.jsonPrimitive.int
            val pools = snapshot["threadsByPool"]!!.jsonObject

            assertTrue(live > 0)
            assertEquals(
                live.toLong() * snapshot["stackSizeBytes"]!!.jsonPrimitive.long,
                snapshot["reservedStackBytes"]!!.jsonPrimitive.long,
            )
            assertTrue(pools.keys.any { it.startsWith("db:") }, "Hikari threads missing in $pools")
        }

    @Test
    fun `thread names lose their numbers to name their pool`() {
        val census = ThreadCensus()

        assertEquals("DefaultDispatcher-worker", census.poolOf("DefaultDispatcher-worker-12"))
        assertEquals("eventLoopGroupProxy", census.poolOf("eventLoopGroupProxy-4-2"))
        assertEquals("per-request", census.poolOf("per-request-311"))
        assertEquals("main", census.poolOf("main"))
    }

    @Test
    fun `relay refuses an unknown mode`() =
        TestServices.withService { client ->
            val response = client.get("/relay?mode=fibers")

            assertEquals(HttpStatusCode.BadRequest, response.status)
            assertTrue(response.bodyAsText().contains("thread-per-request or event-loop"))
        }
}
