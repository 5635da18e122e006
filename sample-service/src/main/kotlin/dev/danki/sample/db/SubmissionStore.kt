package dev.danki.sample.db

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
    fun save(
        submission: StoredSubmission,
        rollback: Boolean,
    ): Long =
        database.jdbi.open().use { handle ->
            handle.begin()
            try {
                val id =
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
                val batch =
                    handle.prepareBatch(
                        "INSERT INTO exam_answer (submission_id, question_id, points) VALUES (:id, :questionId, :points)",
                    )
                submission.pointsByQuestion.forEach { (questionId, points) ->
                    batch
                        .bind("id", id)
                        .bind("questionId", questionId)
                        .bind("points", points)
                        .add()
                }
                batch.execute()
                if (rollback) handle.rollback() else handle.commit()
                id
            } catch (e: Exception) {
                handle.rollback()
                throw e
            }
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
