package dev.danki.cli.it

import dev.danki.cli.ExitCode
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldMatch
import org.junit.jupiter.api.Assumptions
import org.junit.jupiter.api.Test
import java.io.File
import java.net.HttpURLConnection
import java.net.ServerSocket
import java.net.URI
import java.time.Duration
import java.time.Instant

/** `danki bench` with real k6 and warmup.js against the real sample service JVM on loopback. */
class BenchIT {
    private val repo = CliApiServer.repo

    @Test
    fun `bench warms the sample service and prints its cold and warm figures`() {
        val jar = File(repo, "sample-service/target/sample-service-all.jar")
        require(jar.isFile) { "$jar is missing: make build" }
        val port = ServerSocket(0).use { it.localPort }
        val grpc = ServerSocket(0).use { it.localPort }
        val log = File(repo, "cli/target/bench-it-sample-service.log")
        val service =
            ProcessBuilder("java", "-Xmx256m", "-jar", jar.path)
                .apply { environment().putAll(mapOf("PORT" to "$port", "GRPC_PORT" to "$grpc")) }
                .redirectErrorStream(true)
                .redirectOutput(log)
                .start()
        try {
            awaitReady("http://127.0.0.1:$port/readyz", Duration.ofSeconds(60))

            val run =
                CliRun.of(
                    "bench",
                    "http://127.0.0.1:$port",
                    "--paths",
                    "GET /exams/1",
                    "--paths",
                    "GET /exams/2",
                    "--max-warmup-requests",
                    "3000",
                    "--timeout",
                    "2m",
                )

            withClue(run) { run.code shouldBe ExitCode.OK.code }
            run.out shouldContain "http://127.0.0.1:$port"
            run.out shouldContain "Succeeded"
            // a row with four latencies, a duration and a stop reason, e.g. "12.3  80.1  1.2  3.4  21.0s  Converged"
            run.out.lines().first { it.startsWith("http://") } shouldMatch
                Regex(".*Succeeded( +\\d+\\.\\d){4} +\\d+\\.\\ds +$STOP_REASONS.*")
        } finally {
            service.destroy()
            service.waitFor()
        }
    }

    @Test
    fun `bench against a closed port fails with the reason`() {
        Assumptions.assumeTrue(System.getenv("DANKI_K6_BINARY") != null, "needs DANKI_K6_BINARY")
        val port = ServerSocket(0).use { it.localPort }

        val run = CliRun.of("bench", "http://127.0.0.1:$port", "--timeout", "40s")

        withClue(run) { run.code shouldBe ExitCode.NO_GO.code }
        run.out shouldContain "Failed"
    }

    private companion object {
        const val STOP_REASONS = "(Converged|JitSettled|TargetReached|MaxRequests|Timeout)"
    }

    private fun awaitReady(url: String, timeout: Duration) {
        val deadline = Instant.now() + timeout
        while (Instant.now().isBefore(deadline)) {
            val ok =
                runCatching {
                    (URI(url).toURL().openConnection() as HttpURLConnection).run {
                        connectTimeout = 1_000
                        readTimeout = 1_000
                        responseCode == 200
                    }
                }.getOrDefault(false)
            if (ok) return
            Thread.sleep(500)
        }
        error("sample service not ready at $url after $timeout")
    }
}
