package dev.danki.sample.routes

import dev.danki.sample.TestServices
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import io.ktor.http.HttpStatusCode
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.measureTime

class FanOutRoutesTest {
    @Test
    fun `slow answers after the asked delay`() =
        TestServices.withService { client ->
            val took = measureTime { assertEquals("slept 150 ms\n", client.get("/slow?ms=150").bodyAsText()) }

            assertTrue(took.inWholeMilliseconds >= 150, "took $took")
        }

    @Test
    fun `a downstream outside loopback and the pod range is refused`() =
        TestServices.withService { client ->
            val response = client.get("/fanout?n=2&mode=blocking&downstream=http://8.8.8.8/")

            assertEquals(HttpStatusCode.BadRequest, response.status)
            assertTrue(response.bodyAsText().contains("host must be loopback"))
        }

    @Test
    fun `bad mode and bad n are refused`() =
        TestServices.withService { client ->
            assertEquals(HttpStatusCode.BadRequest, client.get("/fanout?mode=sideways").status)
            assertEquals(HttpStatusCode.BadRequest, client.get("/fanout?n=0").status)
            assertEquals(HttpStatusCode.BadRequest, client.get("/fanout?n=1001").status)
            assertEquals(HttpStatusCode.BadRequest, client.get("/slow?ms=-5").status)
        }
}
