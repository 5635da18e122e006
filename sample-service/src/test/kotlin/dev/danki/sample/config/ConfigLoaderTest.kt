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
        assertEquals(9090, config.grpcPort)
        assertEquals("demo", config.auth.username)
    }

    @Test
    fun `gRPC port and demo account come from the environment, and 0 turns gRPC off`() {
        val env = mapOf("GRPC_PORT" to "0", "AUTH_USERNAME" to "warmer", "AUTH_PASSWORD" to "p")

        val config = ConfigLoader.load(yaml, env).getOrThrow()

        assertEquals(0, config.grpcPort)
        assertEquals(AuthSettings("warmer", "p"), config.auth)
        assertTrue(!config.auth.toString().contains("p)"), config.auth.toString())
    }

    @Test
    fun `a gRPC port equal to the HTTP port, or out of range, is refused`() {
        val sameEnv = mapOf("PORT" to "9000", "GRPC_PORT" to "9000")
        val same = ConfigLoader.load(yaml, sameEnv).exceptionOrNull() as ConfigException
        assertTrue(same.problems.single().contains("must differ from PORT"), same.message)

        val badEnv = mapOf("GRPC_PORT" to "70000", "AUTH_PASSWORD" to " ")
        val bad = ConfigLoader.load(yaml, badEnv).exceptionOrNull() as ConfigException
        assertEquals(2, bad.problems.size, bad.message)
    }

    @Test
    fun `environment variables override the file`() {
        val env =
            mapOf(
                "HOST" to "127.0.0.1",
                "PORT" to "9090",
                // the gRPC port's default is 9090 too, and the two must differ
                "GRPC_PORT" to "9091",
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
