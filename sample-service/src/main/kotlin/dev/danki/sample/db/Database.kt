package dev.danki.sample.db

import com.zaxxer.hikari.HikariConfig
import com.zaxxer.hikari.HikariDataSource
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory
import dev.danki.sample.config.DatabaseSettings
import io.micrometer.core.instrument.MeterRegistry
import org.jdbi.v3.core.Jdbi
import org.jdbi.v3.core.JdbiException
import org.jdbi.v3.core.kotlin.KotlinPlugin
import org.slf4j.LoggerFactory

/** The connection pool and JDBI on top of it, with the schema created. Close it to release the pool. */
class Database(
    val settings: DatabaseSettings,
    registry: MeterRegistry?,
) : AutoCloseable {
    private val dataSource: HikariDataSource = HikariDataSource(hikariConfig(settings, registry))

    /** JDBI bound to the pool. */
    val jdbi: Jdbi = Jdbi.create(dataSource).installPlugin(KotlinPlugin())

    init {
        jdbi.useHandle<Exception> { handle ->
            if (!settings.isPostgres) handle.execute(H2_PG_SLEEP)
            SCHEMA.forEach { handle.execute(it) }
        }
        log
            .atInfo()
            .addKeyValue("url", settings.redactedUrl)
            .addKeyValue("poolSize", settings.poolSize)
            .log("database ready")
    }

    /** True when a connection can run a trivial query: what /readyz reports. */
    fun isReachable(): Boolean =
        try {
            jdbi.withHandle<Int, Exception> { it.createQuery("SELECT 1").mapTo(Int::class.java).one() } == 1
        } catch (e: JdbiException) {
            // pool exhausted, connection refused, timed out: all mean "not ready", and are not errors to log
            log.atDebug().setCause(e).log("database not reachable")
            false
        }

    override fun close() = dataSource.close()

    private companion object {
        val log = LoggerFactory.getLogger(Database::class.java)

        /** H2 has no pg_sleep: this alias calls [H2Functions.pgSleep], which really blocks the calling thread. */
        const val H2_PG_SLEEP = "CREATE ALIAS IF NOT EXISTS pg_sleep FOR 'dev.danki.sample.db.H2Functions.pgSleep'"

        val SCHEMA =
            listOf(
                """
                CREATE TABLE IF NOT EXISTS exam_submission (
                    id BIGSERIAL PRIMARY KEY,
                    exam_id INTEGER NOT NULL,
                    candidate_id VARCHAR(64) NOT NULL,
                    score DOUBLE PRECISION NOT NULL,
                    max_score DOUBLE PRECISION NOT NULL,
                    receipt VARCHAR(64) NOT NULL,
                    submitted_at TIMESTAMP WITH TIME ZONE NOT NULL
                )
                """.trimIndent(),
                """
                CREATE TABLE IF NOT EXISTS exam_answer (
                    submission_id BIGINT NOT NULL REFERENCES exam_submission (id),
                    question_id INTEGER NOT NULL,
                    points DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (submission_id, question_id)
                )
                """.trimIndent(),
                "CREATE INDEX IF NOT EXISTS exam_submission_candidate ON exam_submission (candidate_id)",
            )

        fun hikariConfig(settings: DatabaseSettings, registry: MeterRegistry?) =
            HikariConfig().apply {
                jdbcUrl = settings.url
                if (settings.user.isNotEmpty()) username = settings.user
                if (settings.password.isNotEmpty()) password = settings.password
                maximumPoolSize = settings.poolSize
                poolName = "db"
                // wait for a connection rather than failing fast: the experiments queue on purpose
                connectionTimeout = CONNECTION_TIMEOUT_MS
                registry?.let { metricsTrackerFactory = MicrometerMetricsTrackerFactory(it) }
            }

        /** Longer than the slowest experiment's queue (100 requests of 3 s over 8 threads). */
        const val CONNECTION_TIMEOUT_MS = 120_000L
    }
}
