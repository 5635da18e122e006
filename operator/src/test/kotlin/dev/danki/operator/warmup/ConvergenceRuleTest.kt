package dev.danki.operator.warmup

import io.kotest.assertions.withClue
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.util.concurrent.TimeUnit

/**
 * The warm-up stop rule lives in k6-scripts/lib/convergence.js, where k6 runs it; its cases are in
 * src/test/js/convergence.test.mjs and run here with node, so `mvn test` covers them too. Without
 * node the test fails: a skipped rule test would look green in CI.
 */
class ConvergenceRuleTest {
    @Test
    fun `the convergence rule passes its node test suite`() {
        val node =
            withClue("node must be on PATH to test k6-scripts/lib/convergence.js") {
                Executables.find("node").shouldNotBeNull()
            }
        val process =
            ProcessBuilder(node.path, "--experimental-detect-module", "--test", "src/test/js/")
                .redirectErrorStream(true)
                .start()
        val output = process.inputStream.bufferedReader().readText()
        process.waitFor(60, TimeUnit.SECONDS) shouldBe true
        println(output.lines().filter { it.startsWith("# ") }.joinToString("\n"))
        (process.exitValue() to output.contains("# fail 0")) shouldBe (0 to true)
    }
}
