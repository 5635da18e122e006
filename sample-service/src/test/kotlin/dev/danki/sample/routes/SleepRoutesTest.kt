package dev.danki.sample.routes

import dev.danki.sample.TestServices
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import io.ktor.http.HttpStatusCode
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class SleepRoutesTest {
    @Test
    fun `sleep-sync runs the query on the request thread`() =
        TestServices.withService { client ->
            val result = TestServices.json(client.get("/sleep-sync/0.2").bodyAsText())

            assertEquals(result["requestThread"], result["queryThread"])
            assertEquals(0.2, result["seconds"]!!.jsonPrimitive.double)
            assertTrue(result["elapsedMs"]!!.jsonPrimitive.long >= 200, "pg_sleep must really block: $result")
        }

    // the test engine itself runs handlers on Dispatchers.IO, so only the query thread's pool is checked
    // here; EventLoopBlockingIT proves on real Netty that the request thread is freed
    @Test
    fun `sleep-async, runblocking and withcontext run the query on Dispatchers IO`() =
        TestServices.withService { client ->
            for (route in listOf("/sleep-async", "/runblocking", "/withcontext")) {
                val result = TestServices.json(client.get("$route/0.05").bodyAsText())

                assertTrue(result["queryThread"].toString().contains("DefaultDispatcher-worker"), "$route: $result")
                assertEquals(route, result["route"]!!.jsonPrimitive.content)
            }
        }

    @Test
    fun `bad seconds are a 400 that says why`() =
        TestServices.withService { client ->
            for (bad in listOf("abc", "-1", "121", "NaN")) {
                val response = client.get("/sleep-sync/$bad")

                assertEquals(HttpStatusCode.BadRequest, response.status, bad)
                assertTrue(response.bodyAsText().contains("expected a number from 0 to 120"), bad)
            }
        }
}
