package dev.danki.sample.exam

/** Checks an answer sheet against its exam and returns every problem found (empty when valid). */
object SheetValidator {
    private val CANDIDATE_ID = Regex("^[A-Za-z0-9][A-Za-z0-9._-]{2,63}$")

    /** Every reason [sheet] cannot be scored against [exam]. */
    fun problems(exam: Exam, sheet: AnswerSheet): List<String> {
        val problems = mutableListOf<String>()
        if (!CANDIDATE_ID.matches(sheet.candidateId)) {
            problems += "candidateId '${sheet.candidateId}': expected 3-64 letters, digits, '.', '_' or '-'"
        }
        val questions = exam.questions.associateBy { it.id }
        val seen = mutableSetOf<Int>()
        for (answer in sheet.answers) {
            val question = questions[answer.questionId]
            when {
                question == null -> problems += "question ${answer.questionId}: not in exam ${exam.id}"
                !seen.add(answer.questionId) -> problems += "question ${answer.questionId}: answered twice"
                else -> problems += answerProblems(question, answer).map { "question ${question.id}: $it" }
            }
        }
        return problems
    }

    private fun answerProblems(question: Question, answer: Answer): List<String> =
        when (question) {
            is SingleChoiceQuestion -> {
                (answer as? SingleChoiceAnswer)?.let { listOfNotNull(outOfRange(it.choice, question.options.size)) }
            }

            is MultipleChoiceQuestion -> {
                (answer as? MultipleChoiceAnswer)?.let { multipleProblems(question, it) }
            }

            is TrueFalseQuestion -> {
                (answer as? TrueFalseAnswer)?.let { emptyList() }
            }

            is NumericQuestion -> {
                (answer as? NumericAnswer)?.let { listOfNotNull(numericProblem(question, it)) }
            }

            is TextQuestion -> {
                (answer as? TextAnswer)?.let { textProblems(question, it) }
            }

            is OrderingQuestion -> {
                (answer as? OrderingAnswer)?.let { listOfNotNull(orderingProblem(question, it)) }
            }
        } ?: listOf("answer type does not match the question")

    private fun numericProblem(question: NumericQuestion, answer: NumericAnswer): String? =
        "value ${answer.value} not in ${question.min}..${question.max}"
            .takeUnless { answer.value.isFinite() && answer.value in question.min..question.max }

    private fun orderingProblem(question: OrderingQuestion, answer: OrderingAnswer): String? =
        "order must list each of 0..${question.items.size - 1} once"
            .takeUnless { answer.order.sorted() == question.items.indices.toList() }

    private fun multipleProblems(question: MultipleChoiceQuestion, answer: MultipleChoiceAnswer): List<String> {
        val problems = answer.choices.mapNotNull { outOfRange(it, question.options.size) }.toMutableList()
        if (answer.choices.toSet().size != answer.choices.size) problems += "choices repeat"
        if (answer.choices.size !in question.minSelections..question.maxSelections) {
            problems += "pick ${question.minSelections} to ${question.maxSelections} choices, " +
                "not ${answer.choices.size}"
        }
        return problems
    }

    private fun textProblems(question: TextQuestion, answer: TextAnswer): List<String> {
        val length = answer.text.trim().length
        return listOfNotNull(
            "text of $length characters, expected ${question.minLength}..${question.maxLength}"
                .takeUnless { length in question.minLength..question.maxLength },
            "text contains control characters".takeIf { answer.text.any { it.isISOControl() && it != '\n' } },
        )
    }

    private fun outOfRange(choice: Int, options: Int): String? =
        "choice $choice not in 0..${options - 1}".takeUnless { choice in 0 until options }
}
