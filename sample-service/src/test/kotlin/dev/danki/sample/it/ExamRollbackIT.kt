package dev.danki.sample.it

import dev.danki.sample.TestServices
import dev.danki.sample.exam.AnswerSheet
import dev.danki.sample.exam.ExamCatalog
import dev.danki.sample.exam.ExamFixtures
import io.ktor.client.request.header
import io.ktor.client.request.post
import io.ktor.client.request.setBody
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.http.contentType
import kotlinx.serialization.json.Json
import java.util.UUID
import kotlin.test.Test
import kotlin.test.assertEquals

/** On real PostgreSQL: X-Danki-Warmup rolls the exam write back, a normal request keeps it. */
class ExamRollbackIT {
    private val graded = ExamCatalog().find(11)!!

    @Test
    fun `warm-up submission leaves zero rows while a normal one leaves one`() {
        val deps = TestServices.dependencies(TestServices.config(PostgresUrl.require()))
        val run = UUID.randomUUID().toString().take(8)
        val warmupCandidate = "warmup-$run"
        val normalCandidate = "normal-$run"
        TestServices.withService(deps) { client ->
            suspend fun submit(candidate: String, warmup: Boolean) =
                client
                    .post("/exams/11/answers") {
                        contentType(ContentType.Application.Json)
                        if (warmup) header("X-Danki-Warmup", "1")
                        setBody(
                            Json.encodeToString(AnswerSheet.serializer(), ExamFixtures.perfectSheet(graded, candidate)),
                        )
                    }.status

            assertEquals(HttpStatusCode.OK, submit(warmupCandidate, warmup = true))
            assertEquals(HttpStatusCode.OK, submit(normalCandidate, warmup = false))

            assertEquals(0, deps.submissions.countFor(warmupCandidate), "warm-up left a row behind")
            assertEquals(1, deps.submissions.countFor(normalCandidate), "normal request did not store its row")
            assertEquals(0, answerRowsOf(deps, warmupCandidate))
        }
    }

    private fun answerRowsOf(deps: dev.danki.sample.ServiceDependencies, candidate: String): Int =
        deps.database.jdbi.withHandle<Int, Exception> { handle ->
            handle
                .createQuery(
                    "SELECT COUNT(*) FROM exam_answer a JOIN exam_submission s ON s.id = a.submission_id " +
                        "WHERE s.candidate_id = :c",
                ).bind("c", candidate)
                .mapTo(Int::class.java)
                .one()
        }
}
