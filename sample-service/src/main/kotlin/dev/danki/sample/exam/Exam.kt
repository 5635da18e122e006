package dev.danki.sample.exam

import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable

/** An exam as a candidate sees it: questions without their answers. */
@Serializable
data class Exam(
    val id: Int,
    val title: String,
    val durationMinutes: Int,
    val passPercent: Double,
    val questions: List<Question>,
)

/** One question; the JSON `type` field names the kind, and the answer must be of the same kind. */
@Serializable
sealed interface Question {
    val id: Int
    val prompt: String
    val points: Double
}

/** Pick exactly one of [options]. */
@Serializable
@SerialName("single")
data class SingleChoiceQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
    val options: List<String>,
) : Question

/** Pick between [minSelections] and [maxSelections] of [options]. */
@Serializable
@SerialName("multiple")
data class MultipleChoiceQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
    val options: List<String>,
    val minSelections: Int,
    val maxSelections: Int,
) : Question

/** Say whether the statement in the prompt is true. */
@Serializable
@SerialName("true-false")
data class TrueFalseQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
) : Question

/** A number in [min]..[max], in [unit]. */
@Serializable
@SerialName("numeric")
data class NumericQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
    val unit: String,
    val min: Double,
    val max: Double,
) : Question

/** A written answer of [minLength]..[maxLength] characters, scored by similarity to model answers. */
@Serializable
@SerialName("text")
data class TextQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
    val minLength: Int,
    val maxLength: Int,
) : Question

/** Put [items] in the right order: the answer lists item indexes. */
@Serializable
@SerialName("ordering")
data class OrderingQuestion(
    override val id: Int,
    override val prompt: String,
    override val points: Double,
    val items: List<String>,
) : Question
