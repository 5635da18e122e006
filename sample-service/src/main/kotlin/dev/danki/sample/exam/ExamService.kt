package dev.danki.sample.exam

import dev.danki.sample.db.StoredSubmission
import dev.danki.sample.db.SubmissionStore
import java.security.MessageDigest

/** What became of a submitted sheet. */
sealed interface SubmissionOutcome {
    /** No exam with that id. */
    data object UnknownExam : SubmissionOutcome

    /** The sheet broke the exam's rules; nothing was stored. */
    data class Invalid(
        val problems: List<String>,
    ) : SubmissionOutcome

    /** Scored and stored (or, for warm-up, stored then rolled back). */
    data class Scored(
        val result: ExamResult,
    ) : SubmissionOutcome
}

/** The exam flow: look up, validate, score, store. */
class ExamService(
    private val catalog: ExamCatalog,
    private val store: SubmissionStore,
) {
    /** The exam a candidate sees, or null. */
    fun exam(id: Int): Exam? = catalog.find(id)?.exam

    /** Validates and scores [sheet]; [warmup] rolls the database write back. Blocks on the database. */
    fun submit(examId: Int, sheet: AnswerSheet, warmup: Boolean): SubmissionOutcome {
        val graded = catalog.find(examId) ?: return SubmissionOutcome.UnknownExam
        val problems = SheetValidator.problems(graded.exam, sheet)
        if (problems.isNotEmpty()) return SubmissionOutcome.Invalid(problems)

        val points = ExamScorer.score(graded, sheet)
        val score = points.values.sum()
        val maxScore = graded.exam.questions.sumOf { it.points }
        val receipt = receipt(examId, sheet.candidateId, points)
        val stored = StoredSubmission(examId, sheet.candidateId, score, maxScore, receipt, points)
        val id = store.save(stored, rollback = warmup)
        val percent = if (maxScore == 0.0) 0.0 else score * PERCENT / maxScore
        val questions = graded.exam.questions.map { QuestionScore(it.id, points.getValue(it.id), it.points) }
        return SubmissionOutcome.Scored(
            ExamResult(
                examId = examId,
                candidateId = sheet.candidateId,
                submissionId = id,
                score = score,
                maxScore = maxScore,
                percent = percent,
                passed = percent >= graded.exam.passPercent,
                receipt = receipt,
                warmup = warmup,
                questions = questions,
            ),
        )
    }

    private fun receipt(examId: Int, candidateId: String, points: Map<Int, Double>): String {
        val canonical =
            points.toSortedMap().entries.joinToString(",", prefix = "$examId|$candidateId|") { "${it.key}=${it.value}" }
        val digest = MessageDigest.getInstance("SHA-256").digest(canonical.toByteArray())
        return digest.joinToString("") { "%02x".format(it) }
    }

    private companion object {
        const val PERCENT = 100.0
    }
}
