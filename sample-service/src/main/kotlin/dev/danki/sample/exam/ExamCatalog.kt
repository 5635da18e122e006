package dev.danki.sample.exam

import java.util.concurrent.ConcurrentHashMap
import kotlin.random.Random

/**
 * The exams on offer, ids 1..[MAX_EXAM_ID]. Each is generated once from its id (so every replica
 * serves the same exam) and kept, as a real service would keep its catalog in memory.
 */
class ExamCatalog {
    private val exams = ConcurrentHashMap<Int, GradedExam>()

    /** The exam with [id], or null when no such exam exists. */
    fun find(id: Int): GradedExam? = if (id in 1..MAX_EXAM_ID) exams.computeIfAbsent(id, ::generate) else null

    private fun generate(id: Int): GradedExam {
        val random = Random(id * SEED_STRIDE)
        val questions = mutableListOf<Question>()
        val key = mutableMapOf<Int, CorrectAnswer>()
        for (number in 1..QUESTIONS_PER_EXAM) {
            val (question, answer) = QuestionFactory(random).create(number, KINDS[number % KINDS.size])
            questions += question
            key[question.id] = answer
        }
        val exam =
            Exam(
                id = id,
                title = "Operating JVM services, exam $id",
                durationMinutes = DURATION_MINUTES,
                passPercent = PASS_PERCENT,
                questions = questions,
            )
        return GradedExam(exam, key)
    }

    /** Numbers that shape every exam. */
    companion object {
        /** Highest exam id: enough variety for load tests while the whole catalog stays small. */
        const val MAX_EXAM_ID = 1000

        /** About the size of the published exam server's exams. */
        const val QUESTIONS_PER_EXAM = 50

        const val DURATION_MINUTES = 90
        const val PASS_PERCENT = 60.0
        private const val SEED_STRIDE = 7919
        private val KINDS = QuestionKind.entries
    }
}

/** The kinds of question, in the order an exam cycles through them. */
enum class QuestionKind { SINGLE, MULTIPLE, TRUE_FALSE, NUMERIC, TEXT, ORDERING }
