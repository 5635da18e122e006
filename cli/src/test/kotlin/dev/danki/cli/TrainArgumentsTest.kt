package dev.danki.cli

import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import org.junit.jupiter.api.Test
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.net.URI

/** `danki train`'s arguments, refused before anything starts: no cluster, no process. */
class TrainArgumentsTest {
    @Test
    fun `a URL off loopback is refused, since export warms only what it started`() {
        for (url in listOf(
            "http://10.0.0.7:8080",
            "http://example.com",
            "http://127.0.0.1.example.com",
            "http://0.0.0.0:80",
        )) {
            val (code, text) = run("train", "--export", "app.aot", "--url", url, "--", "true")

            code shouldBe ExitCode.USAGE.code
            text shouldContain "is not on loopback"
        }
    }

    @Test
    fun `loopback is localhost, 127 dot anything and the IPv6 loopback, read from the text alone`() {
        for (url in listOf("http://localhost:8080", "http://127.0.0.1:1", "http://127.255.0.9", "http://[::1]:8080")) {
            BaseUrl.isLoopback(URI(url)) shouldBe true
        }
        for (url in listOf("http://128.0.0.1", "http://127.0.0.256", "http://localhost.evil.example", "http://[::2]")) {
            BaseUrl.isLoopback(URI(url)) shouldBe false
        }
    }

    @Test
    fun `export without a COMMAND is refused`() {
        val (code, text) = run("train", "--export", "app.aot")

        code shouldBe ExitCode.USAGE.code
        text shouldContain "--export needs a COMMAND"
    }

    @Test
    fun `both modes at once are refused`() {
        val deploymentFirst = run("train", "deployment/web", "--export", "app.aot", "--", "java", "-jar", "app.jar")
        val withWait = run("train", "--export", "app.aot", "--wait", "--", "java", "-jar", "app.jar")
        val withNamespace = run("train", "-n", "exams", "--export", "app.aot", "--", "java")

        for ((code, text) in listOf(deploymentFirst, withWait, withNamespace)) {
            code shouldBe ExitCode.USAGE.code
            text shouldContain "not both"
        }
    }

    @Test
    fun `the cluster mode takes one Deployment and no local plan`() {
        val none = run("train")
        val two = run("train", "deployment/a", "deployment/b")
        val paths = run("train", "deployment/web", "--paths", "GET /x")

        none.first shouldBe ExitCode.USAGE.code
        none.second shouldContain "name the Deployment to train"
        two.second shouldContain "name one Deployment"
        paths.first shouldBe ExitCode.USAGE.code
        paths.second shouldContain "--paths is for --export"
    }

    @Test
    fun `the recording option is appended to JDK_JAVA_OPTIONS, keeping what is there`() {
        val cache = File("/tmp/app.aot")

        TrainedApp.javaOptions(null, cache) shouldBe "-XX:AOTCacheOutput=/tmp/app.aot"
        TrainedApp.javaOptions(" -Xmx1g ", cache) shouldBe "-Xmx1g -XX:AOTCacheOutput=/tmp/app.aot"
        TrainedApp.javaOptions("", File("/tmp/my dir/app.aot")) shouldBe "\"-XX:AOTCacheOutput=/tmp/my dir/app.aot\""
    }

    @Test
    fun `help lists train`() {
        val (code, text) = run("--help")

        code shouldBe 0
        text shouldContain "train"
        text shouldNotContain "Exception"
    }

    private fun run(vararg args: String): Pair<Int, String> {
        val bytes = ByteArrayOutputStream()
        val stream = PrintStream(bytes, true)
        val code = DankiCommand.run(arrayOf(*args), Console(stream, stream)) { error("no cluster in unit tests") }
        return code to bytes.toString()
    }
}
