package dev.danki.sample.routes

import dev.danki.sample.TestServices
import io.ktor.client.HttpClient
import io.ktor.client.request.get
import io.ktor.client.request.header
import io.ktor.client.request.post
import io.ktor.client.request.setBody
import io.ktor.client.statement.HttpResponse
import io.ktor.client.statement.bodyAsText
import io.ktor.http.ContentType
import io.ktor.http.HttpHeaders
import io.ktor.http.HttpStatusCode
import io.ktor.http.contentType
import kotlinx.serialization.json.jsonPrimitive
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class AuthRoutesTest {
    @Test
    fun `the demo account logs in and its token opens auth me`() =
        TestServices.withService { client ->
            val login = client.login("demo", "demo-password")
            assertEquals(HttpStatusCode.OK, login.status)
            val token = TestServices.json(login.bodyAsText())["token"]!!.jsonPrimitive.content

            val me = client.get("/auth/me") { header(HttpHeaders.Authorization, "Bearer $token") }

            assertEquals(HttpStatusCode.OK, me.status)
            assertEquals("demo", TestServices.json(me.bodyAsText())["username"]!!.jsonPrimitive.content)
        }

    @Test
    fun `a wrong password is a 401 and no token`() =
        TestServices.withService { client ->
            val login = client.login("demo", "guess")

            assertEquals(HttpStatusCode.Unauthorized, login.status)
            assertTrue(!login.bodyAsText().contains("token"), login.bodyAsText())
        }

    @Test
    fun `auth me answers 401 with a challenge without a token, with another scheme, or with a forged one`() =
        TestServices.withService { client ->
            val none = client.get("/auth/me")
            assertEquals(HttpStatusCode.Unauthorized, none.status)
            assertEquals("""Bearer realm="danki-sample"""", none.headers[HttpHeaders.WWWAuthenticate])

            val basic = client.get("/auth/me") { header(HttpHeaders.Authorization, "Basic ZGVtbzpkZW1v") }
            assertEquals(HttpStatusCode.Unauthorized, basic.status)

            val forgedToken = "ZGVtbwo5OTk5OTk5OTk5.AAAA"
            val forged = client.get("/auth/me") { header(HttpHeaders.Authorization, "Bearer $forgedToken") }
            assertEquals(HttpStatusCode.Unauthorized, forged.status)
            assertEquals("""Bearer error="invalid_token"""", forged.headers[HttpHeaders.WWWAuthenticate])
        }

    @Test
    fun `a login without a password field is a 400 naming it`() =
        TestServices.withService { client ->
            val response =
                client.post("/auth/login") {
                    contentType(ContentType.Application.Json)
                    setBody("""{"username":"demo"}""")
                }

            assertEquals(HttpStatusCode.BadRequest, response.status)
            assertTrue(response.bodyAsText().contains("password"), response.bodyAsText())
        }

    private suspend fun HttpClient.login(username: String, password: String): HttpResponse =
        post("/auth/login") {
            contentType(ContentType.Application.Json)
            setBody("""{"username":"$username","password":"$password"}""")
        }
}
