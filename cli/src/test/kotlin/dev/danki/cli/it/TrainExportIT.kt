package dev.danki.cli.it

import dev.danki.cli.ExitCode
import io.kotest.assertions.withClue
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldMatch
import org.junit.jupiter.api.Assumptions
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.net.ServerSocket
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * `danki train --export` for real: the sample service on a JDK 25 JVM, warmed by real k6 over
 * loopback, stopped cleanly, and the AOT cache its JVM wrote on the way out.
 */
class TrainExportIT {
    private val repo = CliApiServer.repo
    private val java = File(System.getenv("DANKI_JDK25_HOME") ?: "/usr/lib/jvm/temurin-25-jdk-amd64", "bin/java")
    private val jar = File(repo, "sample-service/target/sample-service-all.jar")

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    fun `export trains the sample service and writes a non-empty cache`() {
        Assumptions.assumeTrue(java.canExecute(), "skipped: no JDK 25 at $java (set DANKI_JDK25_HOME)")
        Assumptions.assumeTrue(jar.isFile, "skipped: $jar is missing (make build)")
        val port = ServerSocket(0).use { it.localPort }
        val grpc = ServerSocket(0).use { it.localPort }
        val cache = Files.createTempDirectory("train-export-it").resolve("app.aot").toFile()

        val run =
            CliRun.of(
                "train",
                "--export",
                cache.path,
                "--url",
                "http://127.0.0.1:$port",
                "--paths",
                "GET /exams/1",
                "--max-warmup-requests",
                "100",
                "--timeout",
                "90s",
                "--start-timeout",
                "60s",
                "--stop-timeout",
                "120s",
                "--k6",
                File(repo, "bin/k6").path,
                "--script",
                File(repo, "k6-scripts/warmup.js").path,
                "--",
                // env execs java, so SIGTERM reaches the JVM itself
                "env",
                "PORT=$port",
                "GRPC_PORT=$grpc",
                java.path,
                "-Xmx256m",
                "-jar",
                jar.path,
            )

        withClue(run) {
            run.code shouldBe ExitCode.OK.code
            cache.length() shouldBeGreaterThan 0L
            run.out shouldMatch Regex("(?s).*sha256 [0-9a-f]{64}, \\d+\\.\\d MiB.*")
            run.out shouldContain "COPY app.aot /app/app.aot"
            run.out shouldContain "ENV JDK_JAVA_OPTIONS=-XX:AOTCache=/app/app.aot"
        }
        cache.parentFile.deleteRecursively()
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    fun `a COMMAND that exits before answering is reported with its exit code and last lines`() {
        val port = ServerSocket(0).use { it.localPort }
        val cache = Files.createTempDirectory("train-export-it").resolve("app.aot").toFile()

        val run =
            CliRun.of(
                "train",
                "--export",
                cache.path,
                "--url",
                "http://localhost:$port",
                "--",
                "sh",
                "-c",
                "echo 'Error: Unable to access jarfile app.jar'; exit 3",
            )

        withClue(run) {
            run.code shouldBe ExitCode.NO_GO.code
            run.err shouldContain "COMMAND exited with code 3"
            run.err shouldContain "Unable to access jarfile app.jar"
        }
        cache.parentFile.deleteRecursively()
    }
}
