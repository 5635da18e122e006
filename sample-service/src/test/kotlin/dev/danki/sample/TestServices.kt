package dev.danki.sample

import dev.danki.sample.config.DatabaseSettings
import dev.danki.sample.config.ServiceConfig
import dev.danki.sample.metrics.ServiceMetrics
import io.ktor.client.HttpClient
import io.ktor.server.testing.ApplicationTestBuilder
import io.ktor.server.testing.testApplication
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import java.util.UUID

/** Builds the service for tests: a private in-memory H2 unless [databaseUrl] is given. */
object TestServices {
    private const val H2_POSTGRES_MODE = "MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1"

    /** A config whose database is a fresh, private H2 in PostgreSQL mode. */
    fun config(databaseUrl: String? = null): ServiceConfig =
        ServiceConfig(
            database =
                DatabaseSettings(
                    url = databaseUrl ?: "jdbc:h2:mem:test-${UUID.randomUUID()};$H2_POSTGRES_MODE",
                    poolSize = 8,
                ),
        )

    /** Fresh dependencies over [config]; the caller closes them. */
    fun dependencies(config: ServiceConfig = config()): ServiceDependencies {
        val metrics = ServiceMetrics()
        return ServiceDependencies.create(config, metrics)
    }

    /** Runs [block] against the whole module in Ktor's test engine, closing [deps] afterwards. */
    fun withService(
        deps: ServiceDependencies = dependencies(),
        block: suspend ApplicationTestBuilder.(HttpClient) -> Unit,
    ) = deps.use {
        testApplication {
            application { module(deps) }
            block(client)
        }
    }

    /** Parses a JSON object response body. */
    fun json(body: String): JsonObject = Json.parseToJsonElement(body).jsonObject
}
