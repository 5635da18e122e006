package dev.danki.sample.exam

import kotlin.math.abs

/** Scores a validated sheet; unanswered questions get zero. */
object ExamScorer {
    /** Text answers this similar to a model answer (with every keyword) earn full points. */
    private const val FULL_MARKS_SIMILARITY = 0.8

    /** Numeric answers within twice the tolerance earn half. */
    private const val HALF_POINTS = 0.5
    private const val TOLERANCE_FOR_HALF = 2.0

    /** Points by question id, for every question in the exam. */
    fun score(graded: GradedExam, sheet: AnswerSheet): Map<Int, Double> {
        val answers = sheet.answers.associateBy { it.questionId }
        return graded.exam.questions.associate { question ->
            val answer = answers[question.id]
            val correct = graded.key.getValue(question.id)
            val share = if (answer == null) 0.0 else share(correct, answer)
            question.id to question.points * share.coerceIn(0.0, 1.0)
        }
    }

    /** The fraction of a question's points that [answer] earns; an answer of the wrong kind earns none. */
    private fun share(correct: CorrectAnswer, answer: Answer): Double =
        when (correct) {
            is CorrectAnswer.Single -> {
                (answer as? SingleChoiceAnswer)?.let { allOrNothing(it.choice == correct.choice) }
            }

            is CorrectAnswer.Multiple -> {
                (answer as? MultipleChoiceAnswer)?.let { multipleShare(correct, it) }
            }

            is CorrectAnswer.TrueFalse -> {
                (answer as? TrueFalseAnswer)?.let { allOrNothing(it.value == correct.value) }
            }

            is CorrectAnswer.Numeric -> {
                (answer as? NumericAnswer)?.let { numericShare(correct, it.value) }
            }

            is CorrectAnswer.Text -> {
                (answer as? TextAnswer)?.let { textShare(correct, it.text) }
            }

            is CorrectAnswer.Ordering -> {
                (answer as? OrderingAnswer)?.let { orderedPairs(correct.order, it.order) }
            }
        } ?: 0.0

    private fun allOrNothing(right: Boolean) = if (right) 1.0 else 0.0

    /** Right choices minus wrong ones, over the number of right ones. */
    private fun multipleShare(correct: CorrectAnswer.Multiple, answer: MultipleChoiceAnswer): Double {
        val right = answer.choices.count { it in correct.choices }
        val wrong = answer.choices.size - right
        return (right - wrong).toDouble() / correct.choices.size
    }

    private fun numericShare(correct: CorrectAnswer.Numeric, value: Double): Double {
        val off = abs(value - correct.value)
        return when {
            off <= correct.tolerance -> 1.0
            off <= correct.tolerance * TOLERANCE_FOR_HALF -> HALF_POINTS
            else -> 0.0
        }
    }

    private fun textShare(correct: CorrectAnswer.Text, text: String): Double {
        val answer = TextSimilarity.normalise(text)
        val similarity = correct.modelAnswers.maxOf { TextSimilarity.similarity(answer, TextSimilarity.normalise(it)) }
        val cover = TextSimilarity.keywordCover(answer, correct.keywords)
        return (similarity / FULL_MARKS_SIMILARITY) * HALF_POINTS + cover * HALF_POINTS
    }

    /** Share of item pairs the answer puts in the same relative order as the key. */
    private fun orderedPairs(key: List<Int>, answer: List<Int>): Double {
        val position = IntArray(answer.size)
        answer.forEachIndexed { index, item -> position[item] = index }
        var agreeing = 0
        var pairs = 0
        for (i in key.indices) {
            for (j in i + 1 until key.size) {
                pairs++
                if (position[key[i]] < position[key[j]]) agreeing++
            }
        }
        return if (pairs == 0) 1.0 else agreeing.toDouble() / pairs
    }
}
