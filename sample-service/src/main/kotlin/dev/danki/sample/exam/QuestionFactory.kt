package dev.danki.sample.exam

import kotlin.random.Random

/** Makes one question of a given kind, and its answer, from a seeded [random]. */
internal class QuestionFactory(
    private val random: Random,
) {
    fun create(id: Int, kind: QuestionKind): Pair<Question, CorrectAnswer> =
        when (kind) {
            QuestionKind.SINGLE -> {
                SingleChoiceQuestion(id, prompt(id), 1.0, options()) to CorrectAnswer.Single(random.nextInt(OPTIONS))
            }

            QuestionKind.MULTIPLE -> {
                multiple(id)
            }

            QuestionKind.TRUE_FALSE -> {
                TrueFalseQuestion(id, prompt(id), 1.0) to CorrectAnswer.TrueFalse(random.nextBoolean())
            }

            QuestionKind.NUMERIC -> {
                numeric(id)
            }

            QuestionKind.TEXT -> {
                text(id)
            }

            QuestionKind.ORDERING -> {
                ordering(id)
            }
        }

    private fun multiple(id: Int): Pair<Question, CorrectAnswer> {
        val correct = (0 until OPTIONS).shuffled(random).take(MIN_CORRECT_CHOICES + random.nextInt(2)).toSet()
        val question =
            MultipleChoiceQuestion(id, prompt(id), 2.0, options(), minSelections = 1, maxSelections = OPTIONS)
        return question to CorrectAnswer.Multiple(correct)
    }

    private fun numeric(id: Int): Pair<Question, CorrectAnswer> {
        val value = random.nextInt(1, MAX_NUMBER).toDouble()
        val question = NumericQuestion(id, prompt(id), 1.0, unit = "ms", min = 0.0, max = MAX_NUMBER * 2.0)
        return question to CorrectAnswer.Numeric(value, tolerance = value * NUMERIC_TOLERANCE)
    }

    private fun text(id: Int): Pair<Question, CorrectAnswer> {
        val keywords = List(KEYWORDS) { WORDS[random.nextInt(WORDS.size)] }.distinct()
        val models = List(MODEL_ANSWERS) { sentence(MODEL_ANSWER_WORDS) + " " + keywords.joinToString(" ") }
        val question = TextQuestion(id, prompt(id), TEXT_POINTS, minLength = TEXT_MIN, maxLength = TEXT_MAX)
        return question to CorrectAnswer.Text(models, keywords)
    }

    private fun ordering(id: Int): Pair<Question, CorrectAnswer> {
        val items = List(ORDER_ITEMS) { sentence(ITEM_WORDS) }
        val question = OrderingQuestion(id, prompt(id), 2.0, items)
        return question to CorrectAnswer.Ordering((0 until ORDER_ITEMS).shuffled(random))
    }

    private fun prompt(id: Int) = "Question $id: " + sentence(PROMPT_WORDS).replaceFirstChar { it.uppercase() } + "?"

    private fun options() = List(OPTIONS) { sentence(OPTION_WORDS) }

    private fun sentence(words: Int) = List(words) { WORDS[random.nextInt(WORDS.size)] }.joinToString(" ")

    private companion object {
        const val OPTIONS = 4
        const val MAX_NUMBER = 500
        const val NUMERIC_TOLERANCE = 0.05
        const val KEYWORDS = 4
        const val MODEL_ANSWERS = 3

        /** Model answers of roughly 150 to 200 characters, like a short written answer. */
        const val MODEL_ANSWER_WORDS = 22
        const val TEXT_POINTS = 3.0
        const val TEXT_MIN = 20
        const val TEXT_MAX = 2000
        const val ORDER_ITEMS = 6
        const val ITEM_WORDS = 3
        const val MIN_CORRECT_CHOICES = 2
        const val PROMPT_WORDS = 12
        const val OPTION_WORDS = 5

        val WORDS =
            (
                "latency throughput heap stack thread pool queue socket buffer garbage collector compiler tier " +
                    "inline interpreter bytecode class loader metaspace warm cold replica readiness probe service " +
                    "endpoint container kernel scheduler cpu quota memory limit request response timeout retry " +
                    "backoff cache index transaction commit rollback connection driver statement cursor lock " +
                    "deadlock percentile histogram counter gauge event loop coroutine dispatcher blocking"
            ).split(" ")
    }
}
