package dev.danki.sample.db

import org.jdbi.v3.core.Handle
import java.time.OffsetDateTime

/** A scored answer sheet as stored. */
data class StoredSubmission(
    val examId: Int,
    val candidateId: String,
    val score: Double,
    val maxScore: Double,
    val receipt: String,
    val pointsByQuestion: Map<Int, Double>,
)

/** Writes submissions; a warm-up write runs every statement and then rolls back, leaving no rows. */
class SubmissionStore(
    private val database: Database,
) {
    /** Inserts [submission] and its answers in one transaction; returns the new id (also for a rollback). */
    fun save(submission: StoredSubmission, rollback: Boolean): Long =
        database.jdbi.open().use { handle ->
            handle.begin()
            var committed = false
            try {
                val id = insertSubmission(handle, submission)
                insertAnswers(handle, id, submission.pointsByQuestion)
                if (!rollback) {
                    handle.commit()
                    committed = true
                }
                id
            } finally {
                // warm-up writes, and any write that failed half-way, leave nothing behind
                if (!committed) handle.rollback()
            }
        }

    private fun insertSubmission(handle: Handle, submission: StoredSubmission): Long =
        handle
            .createUpdate(
                """
                INSERT INTO exam_submission (exam_id, candidate_id, score, max_score, receipt, submitted_at)
                VALUES (:examId, :candidateId, :score, :maxScore, :receipt, :submittedAt)
                """.trimIndent(),
            ).bind("examId", submission.examId)
            .bind("candidateId", submission.candidateId)
            .bind("score", submission.score)
            .bind("maxScore", submission.maxScore)
            .bind("receipt", submission.receipt)
            .bind("submittedAt", OffsetDateTime.now())
            .executeAndReturnGeneratedKeys("id")
            .mapTo(Long::class.java)
            .one()

    private fun insertAnswers(handle: Handle, submissionId: Long, pointsByQuestion: Map<Int, Double>) {
        val batch =
            handle.prepareBatch(
                "INSERT INTO exam_answer (submission_id, question_id, points) VALUES (:id, :questionId, :points)",
            )
        pointsByQuestion.forEach { (questionId, points) ->
            batch
                .bind("id", submissionId)
                .bind("questionId", questionId)
                .bind("points", points)
                .add()
        }
        batch.execute()
    }

    /** Submissions stored for [candidateId]: what the tests count. */
    fun countFor(candidateId: String): Int =
        database.jdbi.withHandle<Int, Exception> { handle ->
            handle
                .createQuery("SELECT COUNT(*) FROM exam_submission WHERE candidate_id = :candidateId")
                .bind("candidateId", candidateId)
                .mapTo(Int::class.java)
                .one()
        }
}
