package dev.danki.sample.grpc

import dev.danki.sample.TestServices
import dev.danki.sample.exam.AnswerSheet
import dev.danki.sample.exam.ExamCatalog
import dev.danki.sample.exam.ExamFixtures
import dev.danki.sample.exam.MultipleChoiceAnswer
import dev.danki.sample.exam.NumericAnswer
import dev.danki.sample.exam.OrderingAnswer
import dev.danki.sample.exam.SingleChoiceAnswer
import dev.danki.sample.exam.TextAnswer
import dev.danki.sample.exam.TrueFalseAnswer
import dev.danki.sample.grpc.v1.Answer
import dev.danki.sample.grpc.v1.ExamServiceGrpc
import dev.danki.sample.grpc.v1.GetExamRequest
import dev.danki.sample.grpc.v1.SubmitAnswersRequest
import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.StatusRuntimeException
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
import io.grpc.stub.MetadataUtils
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import dev.danki.sample.grpc.v1.MultipleChoiceAnswer as MultipleMessage
import dev.danki.sample.grpc.v1.NumericAnswer as NumericMessage
import dev.danki.sample.grpc.v1.OrderingAnswer as OrderingMessage
import dev.danki.sample.grpc.v1.SingleChoiceAnswer as SingleMessage
import dev.danki.sample.grpc.v1.TextAnswer as TextMessage
import dev.danki.sample.grpc.v1.TrueFalseAnswer as TrueFalseMessage

/** The gRPC exam service on real Netty (a free loopback port), called through a real channel. */
class ExamGrpcServiceTest {
    private val deps = TestServices.dependencies()
    private val server = GrpcServer("127.0.0.1", 0, deps.exams, deps.metrics).start()
    private val channel: ManagedChannel =
        NettyChannelBuilder
            .forAddress("127.0.0.1", server.port)
            .usePlaintext()
            .build()
    private val stub = ExamServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
    private val graded = ExamCatalog().find(3)!!

    @AfterTest
    fun stop() {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        server.stop(Duration.ofSeconds(1))
        deps.close()
    }

    @Test
    fun `an exam comes with fifty questions of every kind`() {
        val exam = stub.getExam(GetExamRequest.newBuilder().setId(3).build())

        assertEquals(50, exam.questionsCount)
        assertEquals(graded.exam.title, exam.title)
        assertEquals(
            6,
            exam.questionsList
                .map { it.kindCase }
                .toSet()
                .size,
        )
    }

    @Test
    fun `a right sheet is scored in full and stored once`() {
        val result = stub.submitAnswers(ExamFixtures.perfectSheet(graded, "grpc-full").toRequest(3))

        assertEquals(result.maxScore, result.score, 1e-9)
        assertTrue(result.passed)
        assertEquals(false, result.warmup)
        assertEquals(1, deps.submissions.countFor("grpc-full"))
    }

    @Test
    fun `a warm-up call is scored but leaves no row, and counts as warm-up traffic`() {
        val key = Metadata.Key.of("x-danki-warmup", Metadata.ASCII_STRING_MARSHALLER)
        val metadata = Metadata().apply { put(key, "1") }
        val warmStub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata))

        val result = warmStub.submitAnswers(ExamFixtures.perfectSheet(graded, "grpc-warm").toRequest(3))

        assertTrue(result.warmup)
        assertEquals(0, deps.submissions.countFor("grpc-warm"))
        val scrape = deps.metrics.scrape()
        assertTrue(
            scrape.contains("danki_sample_warmup_requests_total{method=\"GRPC\""),
            scrape.lines().filter { "warmup" in it }.toString(),
        )
        assertTrue(
            !scrape.contains("danki_sample_grpc_server_requests_seconds_count{method=\"$SUBMIT\""),
        )
    }

    @Test
    fun `unknown exams, invalid sheets and answers without a kind get their status`() {
        val noExam = GetExamRequest.newBuilder().setId(0).build()
        val unknown = assertFailsWith<StatusRuntimeException> { stub.getExam(noExam) }
        assertEquals(Status.Code.NOT_FOUND, unknown.status.code)

        val sheet = ExamFixtures.perfectSheet(graded, "grpc-bad")
        val duplicated = sheet.copy(answers = sheet.answers + sheet.answers.first())
        val invalid = assertFailsWith<StatusRuntimeException> { stub.submitAnswers(duplicated.toRequest(3)) }
        assertEquals(Status.Code.INVALID_ARGUMENT, invalid.status.code)

        val noKind =
            SubmitAnswersRequest
                .newBuilder()
                .setExamId(
                    3,
                ).setCandidateId("x")
                .addAnswers(Answer.newBuilder().setQuestionId(1))
                .build()
        val kindless = assertFailsWith<StatusRuntimeException> { stub.submitAnswers(noKind) }
        assertEquals(Status.Code.INVALID_ARGUMENT, kindless.status.code)
        assertTrue(kindless.status.description!!.contains("question 1"), kindless.status.description)
    }

    private fun AnswerSheet.toRequest(examId: Int): SubmitAnswersRequest =
        SubmitAnswersRequest
            .newBuilder()
            .setExamId(examId)
            .setCandidateId(candidateId)
            .addAllAnswers(
                answers.map { answer ->
                    val builder = Answer.newBuilder().setQuestionId(answer.questionId)
                    when (answer) {
                        is SingleChoiceAnswer -> {
                            builder.setSingle(SingleMessage.newBuilder().setChoice(answer.choice))
                        }

                        is MultipleChoiceAnswer -> {
                            builder.setMultiple(MultipleMessage.newBuilder().addAllChoices(answer.choices))
                        }

                        is TrueFalseAnswer -> {
                            builder.setTrueFalse(TrueFalseMessage.newBuilder().setValue(answer.value))
                        }

                        is NumericAnswer -> {
                            builder.setNumeric(NumericMessage.newBuilder().setValue(answer.value))
                        }

                        is TextAnswer -> {
                            builder.setText(TextMessage.newBuilder().setText(answer.text))
                        }

                        is OrderingAnswer -> {
                            builder.setOrdering(OrderingMessage.newBuilder().addAllOrder(answer.order))
                        }
                    }
                    builder.build()
                },
            ).build()

    private companion object {
        const val SUBMIT = "danki.sample.exam.v1.ExamService/SubmitAnswers"
    }
}
