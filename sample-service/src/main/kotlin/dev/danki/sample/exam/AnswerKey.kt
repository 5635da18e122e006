package dev.danki.sample.exam

/** The correct answer to one question, kept on the server. */
sealed interface CorrectAnswer {
    /** Index of the right option. */
    data class Single(
        val choice: Int,
    ) : CorrectAnswer

    /** Indexes of every right option. */
    data class Multiple(
        val choices: Set<Int>,
    ) : CorrectAnswer

    /** Whether the statement is true. */
    data class TrueFalse(
        val value: Boolean,
    ) : CorrectAnswer

    /** The value, and how far off still earns full points. */
    data class Numeric(
        val value: Double,
        val tolerance: Double,
    ) : CorrectAnswer

    /** Model answers and the keywords a good answer mentions. */
    data class Text(
        val modelAnswers: List<String>,
        val keywords: List<String>,
    ) : CorrectAnswer

    /** Item indexes in the right order. */
    data class Ordering(
        val order: List<Int>,
    ) : CorrectAnswer
}

/** An exam together with its answers by question id. */
data class GradedExam(
    val exam: Exam,
    val key: Map<Int, CorrectAnswer>,
)
