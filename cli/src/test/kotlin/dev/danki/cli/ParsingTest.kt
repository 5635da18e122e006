package dev.danki.cli

import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import java.io.ByteArrayOutputStream
import java.io.PrintStream

class ParsingTest {
    @Test
    fun `a Deployment is named as kubectl names it`() {
        for (text in listOf("deployment/web", "deploy/web", "deployments.apps/web", "web")) {
            DeploymentRef.parse(text, "ns").getOrThrow() shouldBe DeploymentRef("ns", "web")
        }
        DeploymentRef.parse("pod/web", "ns").isFailure shouldBe true
        DeploymentRef.parse("deployment/Web!", "ns").isFailure shouldBe true
        DeploymentRef.parse("deployment/a/b", "ns").isFailure shouldBe true
    }

    @Test
    fun `bad arguments exit 2 with the reason, help exits 0 with the exit codes`() {
        val bad = run("prewarm", "deployment/web", "--replicas", "3", "--timeout", "soon")
        val missing = run("prewarm", "deployment/web")
        val help = run("--help")

        bad.first shouldBe ExitCode.USAGE.code
        bad.second shouldContain "'soon' is not a duration"
        missing.first shouldBe ExitCode.USAGE.code
        missing.second shouldContain "--replicas"
        help.first shouldBe 0
        help.second shouldContain "9  --timeout passed before every new pod was decided"
    }

    @Test
    fun `bench refuses what is not an http URL before starting k6`() {
        val result = run("bench", "file:///etc/passwd")

        result.first shouldBe ExitCode.USAGE.code
        result.second shouldContain "is not an http(s) URL"
    }

    private fun run(vararg args: String): Pair<Int, String> {
        val bytes = ByteArrayOutputStream()
        val stream = PrintStream(bytes, true)
        val code = DankiCommand.run(arrayOf(*args), Console(stream, stream)) { error("no cluster in unit tests") }
        return code to bytes.toString()
    }
}
