package dev.danki.sample.exam

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ExamScoringTest {
    private val graded = ExamCatalog().find(7)!!

    @Test
    fun `an exam has fifty questions of every kind and is the same on every call`() {
        assertEquals(ExamCatalog.QUESTIONS_PER_EXAM, graded.exam.questions.size)
        assertEquals(
            6,
            graded.exam.questions
                .map { it::class }
                .distinct()
                .size,
        )
        assertEquals(graded.exam, ExamCatalog().find(7)!!.exam)
    }

    @Test
    fun `unknown exam ids are not generated`() {
        assertEquals(null, ExamCatalog().find(0))
        assertEquals(null, ExamCatalog().find(ExamCatalog.MAX_EXAM_ID + 1))
    }

    @Test
    fun `the right answers earn every point`() {
        val sheet = ExamFixtures.perfectSheet(graded)

        assertEquals(emptyList(), SheetValidator.problems(graded.exam, sheet))
        val points = ExamScorer.score(graded, sheet)
        assertEquals(graded.exam.questions.sumOf { it.points }, points.values.sum(), 1e-9)
    }

    @Test
    fun `unanswered questions score zero`() {
        val points = ExamScorer.score(graded, AnswerSheet("candidate-1", emptyList()))

        assertEquals(0.0, points.values.sum())
    }

    @Test
    fun `validation lists every problem of a sheet`() {
        val single =
            graded.exam.questions
                .filterIsInstance<SingleChoiceQuestion>()
                .first()
        val ordering =
            graded.exam.questions
                .filterIsInstance<OrderingQuestion>()
                .first()
        val text =
            graded.exam.questions
                .filterIsInstance<TextQuestion>()
                .first()
        val sheet =
            AnswerSheet(
                "x",
                listOf(
                    SingleChoiceAnswer(single.id, 9),
                    SingleChoiceAnswer(single.id, 0),
                    OrderingAnswer(ordering.id, listOf(0, 0, 1)),
                    TextAnswer(text.id, "short"),
                    TrueFalseAnswer(999, true),
                    NumericAnswer(single.id + 1, 1.0),
                ),
            )

        val problems = SheetValidator.problems(graded.exam, sheet)

        assertEquals(7, problems.size, problems.joinToString("\n"))
        assertTrue(problems.first().startsWith("candidateId 'x'"))
        assertTrue(problems.any { it == "question ${single.id}: answered twice" })
        assertTrue(problems.any { it == "question 999: not in exam 7" })
    }

    @Test
    fun `levenshtein distance and similarity`() {
        assertEquals(3, TextSimilarity.levenshtein("kitten", "sitting"))
        assertEquals(0, TextSimilarity.levenshtein("", ""))
        assertEquals(1.0, TextSimilarity.similarity("abc", "abc"))
        assertEquals("heap stack", TextSimilarity.normalise("  Heap, STACK! "))
    }
}
