package dev.danki.sample.exam

/** Answer sheets built from an exam's own key: the right answers, so scores are known. */
object ExamFixtures {
    /** The correct answer to every question of [graded]. */
    fun perfectSheet(graded: GradedExam, candidateId: String = "candidate-1"): AnswerSheet =
        AnswerSheet(
            candidateId,
            graded.exam.questions.map { question ->
                when (val key = graded.key.getValue(question.id)) {
                    is CorrectAnswer.Single -> SingleChoiceAnswer(question.id, key.choice)
                    is CorrectAnswer.Multiple -> MultipleChoiceAnswer(question.id, key.choices.toList())
                    is CorrectAnswer.TrueFalse -> TrueFalseAnswer(question.id, key.value)
                    is CorrectAnswer.Numeric -> NumericAnswer(question.id, key.value)
                    is CorrectAnswer.Text -> TextAnswer(question.id, key.modelAnswers.first())
                    is CorrectAnswer.Ordering -> OrderingAnswer(question.id, key.order)
                }
            },
        )
}
