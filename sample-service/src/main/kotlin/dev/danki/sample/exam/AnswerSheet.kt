package dev.danki.sample.exam

import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable

/** What a candidate posts to `POST /exams/{id}/answers`. Unanswered questions score zero. */
@Serializable
data class AnswerSheet(
    val candidateId: String,
    val answers: List<Answer>,
)

/** One answer; its `type` must match the question's. */
@Serializable
sealed interface Answer {
    val questionId: Int
}

/** Index into [SingleChoiceQuestion.options]. */
@Serializable
@SerialName("single")
data class SingleChoiceAnswer(
    override val questionId: Int,
    val choice: Int,
) : Answer

/** Distinct indexes into [MultipleChoiceQuestion.options]. */
@Serializable
@SerialName("multiple")
data class MultipleChoiceAnswer(
    override val questionId: Int,
    val choices: List<Int>,
) : Answer

/** True or false. */
@Serializable
@SerialName("true-false")
data class TrueFalseAnswer(
    override val questionId: Int,
    val value: Boolean,
) : Answer

/** A number within the question's range. */
@Serializable
@SerialName("numeric")
data class NumericAnswer(
    override val questionId: Int,
    val value: Double,
) : Answer

/** Free text within the question's length limits. */
@Serializable
@SerialName("text")
data class TextAnswer(
    override val questionId: Int,
    val text: String,
) : Answer

/** A permutation of the question's item indexes. */
@Serializable
@SerialName("ordering")
data class OrderingAnswer(
    override val questionId: Int,
    val order: List<Int>,
) : Answer

/** The scored sheet, as stored and returned. */
@Serializable
data class ExamResult(
    val examId: Int,
    val candidateId: String,
    val submissionId: Long,
    val score: Double,
    val maxScore: Double,
    val percent: Double,
    val passed: Boolean,
    /** SHA-256 over the exam, candidate and every answer's points: lets a candidate prove what was scored. */
    val receipt: String,
    /** True when the request carried `X-Danki-Warmup: 1` and the write was rolled back. */
    val warmup: Boolean,
    val questions: List<QuestionScore>,
)

/** Points awarded for one question. */
@Serializable
data class QuestionScore(
    val questionId: Int,
    val points: Double,
    val maxPoints: Double,
)

/** A sheet that failed validation, with every problem found. */
@Serializable
data class ValidationErrors(
    val errors: List<String>,
)
