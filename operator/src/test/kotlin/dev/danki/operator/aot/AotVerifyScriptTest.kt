package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions
import java.security.MessageDigest
import java.util.concurrent.TimeUnit
import kotlin.io.path.exists
import kotlin.io.path.getPosixFilePermissions

/**
 * [AotInjection.VERIFY_SCRIPT] run by this machine's `sh`, with its paths moved into a temporary directory:
 * the shell it runs in a pod is busybox's or dash, both POSIX like this one.
 */
class AotVerifyScriptTest {
    @TempDir lateinit var dir: Path

    private val store get() = dir.resolve("store")
    private val copy get() = dir.resolve("copy")
    private val report get() = dir.resolve("termination-log")

    private val content = "an aot cache".toByteArray()
    private val sha = MessageDigest.getInstance("SHA-256").digest(content).joinToString("") { "%02x".format(it) }
    private val file = "cache/$sha.aot"

    @BeforeEach
    fun tools() {
        assumeTrue(
            listOf("sh", "sha256sum").all { tool ->
                System.getenv("PATH").split(':').any { File(it, tool).canExecute() }
            },
        )
        store.resolve("cache").toFile().mkdirs()
        copy.toFile().mkdirs()
    }

    /** Runs the script with [sha256] and [path]; its exit code. */
    private fun run(sha256: String = sha, path: String = file): Int {
        val script =
            AotInjection.VERIFY_SCRIPT
                .replace(Keys.Aot.STORE_DIR, store.toString())
                .replace(Keys.Aot.COPY_DIR, copy.toString())
                .replace("/dev/termination-log", report.toString())
        val process =
            ProcessBuilder("sh", "-c", script)
                .redirectErrorStream(true)
                .apply { environment()[AotInjection.SHA256_ENV] = sha256 }
                .apply { environment()[AotInjection.FILE_ENV] = path }
                .start()
        process.waitFor(10, TimeUnit.SECONDS) shouldBe true
        return process.exitValue()
    }

    private fun stored(bytes: ByteArray = content) = store.resolve(file).toFile().writeBytes(bytes)

    private fun report() = report.toFile().readText().trim()

    @Test
    fun `a cache with the right digest is copied read-only where the JVM reads it`() {
        stored()

        run() shouldBe 0

        report() shouldBe "verified $sha"
        copy
            .resolve("app.aot")
            .toFile()
            .readBytes()
            .toList() shouldBe content.toList()
        PosixFilePermissions.toString(copy.resolve("app.aot").getPosixFilePermissions()) shouldBe "r--r--r--"
        copy.resolve("app.aot.tmp").exists() shouldBe false
    }

    @Test
    fun `a cache with another digest is removed, and the report says what it was`() {
        stored("swapped".toByteArray())
        val got =
            MessageDigest
                .getInstance(
                    "SHA-256",
                ).digest("swapped".toByteArray())
                .joinToString("") { "%02x".format(it) }

        run() shouldBe 0

        report() shouldBe "absent: checksum mismatch: got $got"
        copy.resolve("app.aot").exists() shouldBe false
        copy.resolve("app.aot.tmp").exists() shouldBe false
    }

    @Test
    fun `no cache file is absent, and still exit 0`() {
        run() shouldBe 0

        report() shouldBe "absent: no cache file at $file"
        copy.resolve("app.aot").exists() shouldBe false
    }

    @Test
    fun `values with shell syntax stay data`() {
        stored()
        val marker = dir.resolve("pwned")

        run(sha256 = "\$(touch $marker)", path = "$file; touch $marker") shouldBe 0

        marker.exists() shouldBe false
        report() shouldBe "absent: no cache file at $file; touch $marker"
    }
}
