package dev.danki.cli

import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream

class VersionCommandTest {
    @Test
    fun `danki version prints the chart's appVersion alone, without a cluster`() {
        val chart = File(System.getenv("DANKI_REPO") ?: "..", "charts/danki/Chart.yaml").readLines()
        val appVersion =
            chart
                .single {
                    it.startsWith(
                        "appVersion:",
                    )
                }.substringAfter(':')
                .trim()
                .removeSurrounding("\"")
        val out = ByteArrayOutputStream()
        val err = ByteArrayOutputStream()

        val code =
            DankiCommand.run(arrayOf("version"), Console(PrintStream(out, true), PrintStream(err, true))) {
                error("version must not reach for a cluster")
            }

        code shouldBe ExitCode.OK.code
        out.toString() shouldBe "$appVersion\n"
        err.toString() shouldBe ""
    }
}
