package dev.danki.sample.routes

import dev.danki.sample.exam.AnswerSheet
import dev.danki.sample.exam.ExamService
import dev.danki.sample.exam.SubmissionOutcome
import dev.danki.sample.exam.ValidationErrors
import dev.danki.sample.warmup.isWarmup
import io.ktor.http.HttpStatusCode
import io.ktor.server.plugins.BadRequestException
import io.ktor.server.request.receive
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.RoutingCall
import io.ktor.server.routing.get
import io.ktor.server.routing.post
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/** The exam flow danki warms: fetch an exam, then submit a sheet to be validated, scored and stored. */
fun Route.examRoutes(exams: ExamService) {
    get("/exams/{id}") {
        val exam = exams.exam(call.examId()) ?: return@get call.respond(HttpStatusCode.NotFound, notFound(call))
        call.respond(exam)
    }
    post("/exams/{id}/answers") {
        val examId = call.examId()
        val sheet = call.receive<AnswerSheet>()
        val warmup = call.isWarmup
        // scoring is CPU work, the write blocks on JDBC: both stay off the event loop
        when (val outcome = withContext(Dispatchers.IO) { exams.submit(examId, sheet, warmup) }) {
            SubmissionOutcome.UnknownExam -> {
                call.respond(HttpStatusCode.NotFound, notFound(call))
            }

            is SubmissionOutcome.Invalid -> {
                call.respond(HttpStatusCode.UnprocessableEntity, ValidationErrors(outcome.problems))
            }

            is SubmissionOutcome.Scored -> {
                call.respond(outcome.result)
            }
        }
    }
}

private fun RoutingCall.examId(): Int {
    val raw = parameters["id"]
    return raw?.toIntOrNull() ?: throw BadRequestException("exam id '$raw': expected a whole number")
}

private fun notFound(call: RoutingCall) = ValidationErrors(listOf("exam ${call.parameters["id"]}: no such exam"))
