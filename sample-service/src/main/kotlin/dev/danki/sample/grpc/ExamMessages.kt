package dev.danki.sample.grpc

import dev.danki.sample.exam.Answer
import dev.danki.sample.exam.AnswerSheet
import dev.danki.sample.exam.Exam
import dev.danki.sample.exam.ExamResult
import dev.danki.sample.exam.MultipleChoiceAnswer
import dev.danki.sample.exam.MultipleChoiceQuestion
import dev.danki.sample.exam.NumericAnswer
import dev.danki.sample.exam.NumericQuestion
import dev.danki.sample.exam.OrderingAnswer
import dev.danki.sample.exam.OrderingQuestion
import dev.danki.sample.exam.Question
import dev.danki.sample.exam.SingleChoiceAnswer
import dev.danki.sample.exam.SingleChoiceQuestion
import dev.danki.sample.exam.TextAnswer
import dev.danki.sample.exam.TextQuestion
import dev.danki.sample.exam.TrueFalseAnswer
import dev.danki.sample.exam.TrueFalseQuestion
import dev.danki.sample.grpc.v1.MultipleChoice
import dev.danki.sample.grpc.v1.Numeric
import dev.danki.sample.grpc.v1.Ordering
import dev.danki.sample.grpc.v1.QuestionScore
import dev.danki.sample.grpc.v1.SingleChoice
import dev.danki.sample.grpc.v1.SubmitAnswersRequest
import dev.danki.sample.grpc.v1.Text
import dev.danki.sample.grpc.v1.TrueFalse
import dev.danki.sample.grpc.v1.Answer as AnswerMessage
import dev.danki.sample.grpc.v1.Exam as ExamMessage
import dev.danki.sample.grpc.v1.ExamResult as ExamResultMessage
import dev.danki.sample.grpc.v1.Question as QuestionMessage

// The exam model of the HTTP routes to and from the messages of src/main/proto/exam.proto.

/** The exam as its gRPC message. */
fun Exam.toMessage(): ExamMessage =
    ExamMessage
        .newBuilder()
        .setId(id)
        .setTitle(title)
        .setDurationMinutes(durationMinutes)
        .setPassPercent(passPercent)
        .addAllQuestions(questions.map { it.toMessage() })
        .build()

private fun Question.toMessage(): QuestionMessage {
    val builder =
        QuestionMessage
            .newBuilder()
            .setId(id)
            .setPrompt(prompt)
            .setPoints(points)
    when (this) {
        is SingleChoiceQuestion -> {
            builder.setSingle(SingleChoice.newBuilder().addAllOptions(options))
        }

        is MultipleChoiceQuestion -> {
            builder.setMultiple(multipleChoice())
        }

        is TrueFalseQuestion -> {
            builder.setTrueFalse(TrueFalse.getDefaultInstance())
        }

        is NumericQuestion -> {
            builder.setNumeric(
                Numeric
                    .newBuilder()
                    .setUnit(unit)
                    .setMin(min)
                    .setMax(max),
            )
        }

        is TextQuestion -> {
            builder.setText(Text.newBuilder().setMinLength(minLength).setMaxLength(maxLength))
        }

        is OrderingQuestion -> {
            builder.setOrdering(Ordering.newBuilder().addAllItems(items))
        }
    }
    return builder.build()
}

private fun MultipleChoiceQuestion.multipleChoice() =
    MultipleChoice
        .newBuilder()
        .addAllOptions(options)
        .setMinSelections(minSelections)
        .setMaxSelections(maxSelections)

/** The request's sheet in the HTTP routes' model; throws [AnswerWithoutKind] for an answer without one. */
fun SubmitAnswersRequest.toSheet(): AnswerSheet = AnswerSheet(candidateId, answersList.map { it.toAnswer() })

private fun AnswerMessage.toAnswer(): Answer =
    when (kindCase) {
        AnswerMessage.KindCase.SINGLE -> SingleChoiceAnswer(questionId, single.choice)
        AnswerMessage.KindCase.MULTIPLE -> MultipleChoiceAnswer(questionId, multiple.choicesList)
        AnswerMessage.KindCase.TRUE_FALSE -> TrueFalseAnswer(questionId, trueFalse.value)
        AnswerMessage.KindCase.NUMERIC -> NumericAnswer(questionId, numeric.value)
        AnswerMessage.KindCase.TEXT -> TextAnswer(questionId, text.text)
        AnswerMessage.KindCase.ORDERING -> OrderingAnswer(questionId, ordering.orderList)
        AnswerMessage.KindCase.KIND_NOT_SET, null -> throw AnswerWithoutKind(questionId)
    }

/** The scored sheet as its gRPC message. */
fun ExamResult.toMessage(): ExamResultMessage =
    ExamResultMessage
        .newBuilder()
        .setExamId(examId)
        .setCandidateId(candidateId)
        .setSubmissionId(submissionId)
        .setScore(score)
        .setMaxScore(maxScore)
        .setPercent(percent)
        .setPassed(passed)
        .setReceipt(receipt)
        .setWarmup(warmup)
        .addAllQuestions(
            questions.map {
                QuestionScore
                    .newBuilder()
                    .setQuestionId(it.questionId)
                    .setPoints(it.points)
                    .setMaxPoints(it.maxPoints)
                    .build()
            },
        ).build()
