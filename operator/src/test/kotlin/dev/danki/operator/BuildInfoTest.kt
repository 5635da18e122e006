package dev.danki.operator

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import java.io.File
import java.util.Properties

class BuildInfoTest {
    private val chart = File(System.getenv("DANKI_REPO") ?: "..", "charts/danki/Chart.yaml").readLines()

    private fun chartField(name: String) =
        chart
            .single { it.startsWith("$name:") }
            .substringAfter(':')
            .trim()
            .removeSurrounding("\"")

    @Test
    fun `the build's version is the chart's version and appVersion`() {
        BuildInfo.version shouldBe chartField("version")
        BuildInfo.version shouldBe chartField("appVersion")
    }

    @Test
    fun `an unfiltered or empty build-info is refused, naming the fix`() {
        for (text in listOf("version=\${danki.version}", "version=", "other=1")) {
            val properties = Properties().apply { load(text.reader()) }
            shouldThrow<IllegalStateException> { BuildInfo.versionOf(properties) }.message shouldContain
                "build danki with Maven"
        }
        BuildInfo.versionOf(Properties().apply { setProperty("version", "1.2.3-rc.1") }) shouldBe "1.2.3-rc.1"
    }
}
