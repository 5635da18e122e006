package dev.danki.sample.grpc

import dev.danki.sample.exam.ExamService
import dev.danki.sample.exam.SubmissionOutcome
import dev.danki.sample.grpc.v1.ExamServiceGrpc
import dev.danki.sample.grpc.v1.GetExamRequest
import dev.danki.sample.grpc.v1.SubmitAnswersRequest
import dev.danki.sample.warmup.WarmupMetadata
import io.grpc.Status
import io.grpc.StatusRuntimeException
import io.grpc.stub.StreamObserver
import dev.danki.sample.grpc.v1.Exam as ExamMessage
import dev.danki.sample.grpc.v1.ExamResult as ExamResultMessage

/**
 * The exam flow over gRPC, on the same [ExamService] as the HTTP routes. Handlers run on grpc-java's
 * executor threads, not on an event loop, so the blocking database write is made right here.
 */
class ExamGrpcService(
    private val exams: ExamService,
) : ExamServiceGrpc.ExamServiceImplBase() {
    override fun getExam(request: GetExamRequest, responseObserver: StreamObserver<ExamMessage>) {
        val exam = exams.exam(request.id) ?: return responseObserver.onError(noSuchExam(request.id))
        responseObserver.onNext(exam.toMessage())
        responseObserver.onCompleted()
    }

    override fun submitAnswers(request: SubmitAnswersRequest, responseObserver: StreamObserver<ExamResultMessage>) {
        val sheet =
            try {
                request.toSheet()
            } catch (e: AnswerWithoutKind) {
                return responseObserver.onError(invalid(listOf(e.message.orEmpty())))
            }
        when (val outcome = exams.submit(request.examId, sheet, WarmupMetadata.isWarmupCall())) {
            SubmissionOutcome.UnknownExam -> {
                responseObserver.onError(noSuchExam(request.examId))
            }

            is SubmissionOutcome.Invalid -> {
                responseObserver.onError(invalid(outcome.problems))
            }

            is SubmissionOutcome.Scored -> {
                responseObserver.onNext(outcome.result.toMessage())
                responseObserver.onCompleted()
            }
        }
    }

    private fun noSuchExam(id: Int) = Status.NOT_FOUND.withDescription("exam $id: no such exam").asRuntimeException()

    private fun invalid(problems: List<String>): StatusRuntimeException {
        val description = problems.joinToString("; ")
        return Status.INVALID_ARGUMENT.withDescription(description).asRuntimeException()
    }
}
