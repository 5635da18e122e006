package dev.danki.sample

import dev.danki.sample.auth.Tokens
import dev.danki.sample.config.ServiceConfig
import dev.danki.sample.db.Database
import dev.danki.sample.db.SleepQuery
import dev.danki.sample.db.SubmissionStore
import dev.danki.sample.exam.ExamCatalog
import dev.danki.sample.exam.ExamService
import dev.danki.sample.fanout.FanOut
import dev.danki.sample.fanout.HttpClients
import dev.danki.sample.metrics.ServiceMetrics
import dev.danki.sample.threads.Relay
import dev.danki.sample.threads.ThreadCensus
import io.ktor.client.HttpClient

/** Everything the routes need, built once; tests build their own. Close to release pool and client. */
class ServiceDependencies(
    val config: ServiceConfig,
    val metrics: ServiceMetrics,
    val database: Database,
    val httpClient: HttpClient,
) : AutoCloseable {
    val threadCensus = ThreadCensus()
    val sleepQuery = SleepQuery(database)
    val submissions = SubmissionStore(database)
    val exams = ExamService(ExamCatalog(), submissions)
    val fanOut = FanOut(httpClient, threadCensus)
    val tokens = Tokens(config.auth)

    /** This service as seen from itself: /relay and the default /fanout downstream call it over loopback. */
    val selfBaseUrl = "http://127.0.0.1:${config.port}"
    val relay = Relay(httpClient, selfBaseUrl)

    override fun close() {
        relay.close()
        httpClient.close()
        database.close()
        metrics.close()
    }

    /** Builders for the running service. */
    companion object {
        /** Connects to the configured database (creating the schema) with pool metrics in [metrics]. */
        fun create(config: ServiceConfig, metrics: ServiceMetrics): ServiceDependencies {
            val database = Database(config.database, metrics.registry)
            return ServiceDependencies(config, metrics, database, HttpClients.nonBlocking())
        }
    }
}
