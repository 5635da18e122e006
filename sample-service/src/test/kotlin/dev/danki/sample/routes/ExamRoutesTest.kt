package dev.danki.sample.routes

import dev.danki.sample.TestServices
import dev.danki.sample.exam.AnswerSheet
import dev.danki.sample.exam.ExamCatalog
import dev.danki.sample.exam.ExamFixtures
import io.ktor.client.HttpClient
import io.ktor.client.request.get
import io.ktor.client.request.header
import io.ktor.client.request.post
import io.ktor.client.request.setBody
import io.ktor.client.statement.HttpResponse
import io.ktor.client.statement.bodyAsText
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.http.contentType
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonPrimitive
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ExamRoutesTest {
    private val graded = ExamCatalog().find(3)!!

    @Test
    fun `an exam is served as JSON with fifty typed questions and no answers`() =
        TestServices.withService { client ->
            val body = client.get("/exams/3").bodyAsText()
            val questions = TestServices.json(body)["questions"]!!.jsonArray

            assertEquals(50, questions.size)
            assertTrue(body.contains("\"type\":\"text\""))
            assertTrue(!body.contains("modelAnswers") && !body.contains("keywords"))
        }

    @Test
    fun `unknown or malformed exam ids are 404 and 400`() =
        TestServices.withService { client ->
            assertEquals(HttpStatusCode.NotFound, client.get("/exams/0").status)
            assertEquals(HttpStatusCode.BadRequest, client.get("/exams/abc").status)
        }

    @Test
    fun `a right sheet is scored in full and stored once`() {
        val deps = TestServices.dependencies()
        TestServices.withService(deps) { client ->
            val response = client.submit(ExamFixtures.perfectSheet(graded, "full-marks"))
            val result = TestServices.json(response.bodyAsText())

            assertEquals(HttpStatusCode.OK, response.status)
            assertEquals(result["maxScore"]!!.jsonPrimitive.double, result["score"]!!.jsonPrimitive.double, 1e-9)
            assertTrue(result["passed"]!!.jsonPrimitive.boolean)
            assertEquals(1, deps.submissions.countFor("full-marks"))
        }
    }

    @Test
    fun `a warm-up submission is scored but leaves no row`() {
        val deps = TestServices.dependencies()
        TestServices.withService(deps) { client ->
            val sheet = ExamFixtures.perfectSheet(graded, "warm-up-1")
            val response = client.submit(sheet) { header("X-Danki-Warmup", "1") }

            assertEquals(HttpStatusCode.OK, response.status)
            assertTrue(TestServices.json(response.bodyAsText())["warmup"]!!.jsonPrimitive.boolean)
            assertEquals(0, deps.submissions.countFor("warm-up-1"))
        }
    }

    @Test
    fun `an invalid sheet is a 422 listing every problem`() =
        TestServices.withService { client ->
            val sheet = ExamFixtures.perfectSheet(graded, "?")
            val broken = sheet.copy(answers = sheet.answers + sheet.answers.first())

            val response = client.submit(broken)

            assertEquals(HttpStatusCode.UnprocessableEntity, response.status)
            val errors = TestServices.json(response.bodyAsText())["errors"]!!.jsonArray
            assertEquals(2, errors.size, errors.toString())
        }

    @Test
    fun `malformed JSON is a 400 naming the problem`() =
        TestServices.withService { client ->
            val response =
                client.post("/exams/3/answers") {
                    contentType(ContentType.Application.Json)
                    setBody("""{"candidateId":"abc","answers":[{"type":"essay","questionId":1}]}""")
                }

            assertEquals(HttpStatusCode.BadRequest, response.status)
            assertTrue(response.bodyAsText().contains("essay"), response.bodyAsText())
        }

    private suspend fun HttpClient.submit(
        sheet: AnswerSheet,
        extra: io.ktor.client.request.HttpRequestBuilder.() -> Unit = {},
    ): HttpResponse =
        post("/exams/3/answers") {
            contentType(ContentType.Application.Json)
            setBody(Json.encodeToString(AnswerSheet.serializer(), sheet))
            extra()
        }
}
