package dev.danki.sample.config

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ConfigLoaderTest {
    private val yaml = YamlSettings.read()

    @Test
    fun `application yaml alone gives the documented defaults`() {
        val config = ConfigLoader.load(yaml, emptyMap()).getOrThrow()

        assertEquals("0.0.0.0", config.host)
        assertEquals(8080, config.port)
        assertEquals(0, config.netty.callGroupSize)
        assertEquals(32, config.netty.runningLimit)
        assertTrue(config.database.url.startsWith("jdbc:h2:mem:"))
        assertEquals(16, config.database.poolSize)
    }

    @Test
    fun `environment variables override the file`() {
        val env =
            mapOf(
                "HOST" to "127.0.0.1",
                "PORT" to "9090",
                "CALL_GROUP_SIZE" to "8",
                "WORKER_GROUP_SIZE" to "2",
                "RUNNING_LIMIT" to "10",
                "DATABASE_URL" to "jdbc:postgresql://127.0.0.1:5432/danki?user=danki",
                "DB_POOL_SIZE" to "64",
            )

        val config = ConfigLoader.load(yaml, env).getOrThrow()

        assertEquals("127.0.0.1", config.host)
        assertEquals(9090, config.port)
        assertEquals(NettySettings(8, 2, 10), config.netty)
        assertTrue(config.database.isPostgres)
        assertEquals(64, config.database.poolSize)
    }

    @Test
    fun `every bad setting is reported in one error`() {
        val env =
            mapOf(
                "PORT" to "80a",
                "CALL_GROUP_SIZE" to "-1",
                "DATABASE_URL" to "mysql://x",
                "DB_POOL_SIZE" to "0",
                "HOST" to " ",
            )

        val error = ConfigLoader.load(yaml, env).exceptionOrNull() as ConfigException

        assertEquals(5, error.problems.size, error.message)
        listOf("env PORT='80a'", "env CALL_GROUP_SIZE='-1'", "env DATABASE_URL='mysql://x'")
            .plus(listOf("env DB_POOL_SIZE='0'", "env HOST"))
            .forEach { expected ->
                assertTrue(error.problems.any { it.startsWith(expected) }, "missing $expected in ${error.message}")
            }
    }

    @Test
    fun `a libpq URL becomes a JDBC URL with its credentials`() {
        val env = mapOf("DATABASE_URL" to "postgresql://danki:secret@127.0.0.1:5433/bench?sslmode=disable")

        val config = ConfigLoader.load(yaml, env).getOrThrow()

        val expected = "jdbc:postgresql://127.0.0.1:5433/bench?sslmode=disable&user=danki"
        assertEquals("$expected&password=secret", config.database.url)
        assertEquals("$expected&password=***", config.database.redactedUrl)
    }
}
