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
    fun score(
        graded: GradedExam,
        sheet: AnswerSheet,
    ): Map<Int, Double> {
        val answers = sheet.answers.associateBy { it.questionId }
        return graded.exam.questions.associate { question ->
            val answer = answers[question.id]
            val correct = graded.key.getValue(question.id)
            val share = if (answer == null) 0.0 else share(correct, answer)
            question.id to question.points * share.coerceIn(0.0, 1.0)
        }
    }

    /** The fraction of a question's points that [answer] earns. */
    private fun share(
        correct: CorrectAnswer,
        answer: Answer,
    ): Double =
        when {
            correct is CorrectAnswer.Single && answer is SingleChoiceAnswer -> if (answer.choice == correct.choice) 1.0 else 0.0
            correct is CorrectAnswer.Multiple && answer is MultipleChoiceAnswer -> {
                val right = answer.choices.count { it in correct.choices }
                val wrong = answer.choices.size - right
                (right - wrong).toDouble() / correct.choices.size
            }
            correct is CorrectAnswer.TrueFalse && answer is TrueFalseAnswer -> if (answer.value == correct.value) 1.0 else 0.0
            correct is CorrectAnswer.Numeric && answer is NumericAnswer -> numericShare(correct, answer.value)
            correct is CorrectAnswer.Text && answer is TextAnswer -> textShare(correct, answer.text)
            correct is CorrectAnswer.Ordering && answer is OrderingAnswer -> orderedPairs(correct.order, answer.order)
            else -> 0.0
        }

    private fun numericShare(
        correct: CorrectAnswer.Numeric,
        value: Double,
    ): Double {
        val off = abs(value - correct.value)
        return when {
            off <= correct.tolerance -> 1.0
            off <= correct.tolerance * TOLERANCE_FOR_HALF -> HALF_POINTS
            else -> 0.0
        }
    }

    private fun textShare(
        correct: CorrectAnswer.Text,
        text: String,
    ): Double {
        val answer = TextSimilarity.normalise(text)
        val similarity = correct.modelAnswers.maxOf { TextSimilarity.similarity(answer, TextSimilarity.normalise(it)) }
        val cover = TextSimilarity.keywordCover(answer, correct.keywords)
        return (similarity / FULL_MARKS_SIMILARITY) * HALF_POINTS + cover * HALF_POINTS
    }

    /** Share of item pairs the answer puts in the same relative order as the key. */
    private fun orderedPairs(
        key: List<Int>,
        answer: List<Int>,
    ): Double {
        val position = IntArray(answer.size).also { positions -> answer.forEachIndexed { index, item -> positions[item] = index } }
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
