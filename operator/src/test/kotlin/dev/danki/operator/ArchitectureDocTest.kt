package dev.danki.operator

import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.io.File

/**
 * docs/architecture.md names the operator's files and functions; this keeps it in step with the
 * code: every `package/Type` or `package/Type.function` it names exists, and the hop count it states
 * is the number of rows of its hop table.
 */
class ArchitectureDocTest {
    private val doc = File("../docs/architecture.md").readText()
    private val sources = File("src/main/kotlin/dev/danki/operator")
    private val packages =
        sources
            .listFiles()!!
            .filter { it.isDirectory }
            .map { it.name }
            .toSet()
    private val reference = Regex("""\b([a-z]+)/([A-Z][A-Za-z0-9]*)(?:\.([a-z][A-Za-z0-9]*))?""")

    @Test
    fun `every file and function the page names exists`() {
        val named = reference.findAll(doc).filter { it.groupValues[1] in packages }.toList()
        (named.size > HOPS_AT_LEAST) shouldBe true
        val missing =
            named
                .mapNotNull { m ->
                    val (pkg, type, member) = m.destructured
                    val file = File(sources, "$pkg/$type.kt")
                    when {
                        !file.exists() -> m.value

                        member.isNotEmpty() &&
                            !Regex(
                                """\b(fun|val|var) $member\b""",
                            ).containsMatchIn(file.readText())
                        -> m.value

                        else -> null
                    }
                }.distinct()
        missing.shouldBeEmpty()
    }

    @Test
    fun `the stated hop count is the hop table's`() {
        val stated = Regex("""\*\*(\d+) hops\*\*""").find(doc)!!.groupValues[1].toInt()
        val rows = doc.lines().count { Regex("""^\| \d+ \| `""").containsMatchIn(it) }
        rows shouldBe stated
    }

    private companion object {
        /** The hop table alone names more than this; fewer means the pattern no longer matches the page. */
        const val HOPS_AT_LEAST = 20
    }
}
