package dev.danki.cluster.catalog

import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull

class ImageCatalogTest {
    @Test
    fun `parses command, args, env and working dir with REPO replaced`() {
        val catalog =
            ImageCatalog.parse(
                """
                images:
                  danki/operator:dev:
                    command: [java, -jar, operator/target/operator-all.jar]
                    args: [--verbose]
                    env: {DANKI_K6_BINARY: "${'$'}{REPO}/bin/k6"}
                    workingDir: operator
                """.trimIndent(),
                "images.yaml",
                "/repo",
            )
        val image = catalog.find("danki/operator:dev")!!
        assertEquals(listOf("java", "-jar", "operator/target/operator-all.jar"), image.command)
        assertEquals(listOf("--verbose"), image.args)
        assertEquals(mapOf("DANKI_K6_BINARY" to "/repo/bin/k6"), image.env)
        assertEquals("operator", image.workingDir)
        assertNull(catalog.find("danki/other:dev"))
    }

    @Test
    fun `reports every problem with the file name`() {
        val error =
            assertFailsWith<CatalogException> {
                val text = "images:\n  a: {args: [x]}\n  b: {command: [x], colour: red}\n"
                ImageCatalog.parse(text, "local-cluster/images.yaml", "/repo")
            }
        assertContains(error.message!!, "local-cluster/images.yaml")
        assertContains(error.message!!, "a: 'command' must be a non-empty list of strings")
        assertContains(error.message!!, "b: unknown key 'colour'")
    }

    @Test
    fun `file without images map is rejected`() {
        val error = assertFailsWith<CatalogException> { ImageCatalog.parse("imgs: {}\n", "x.yaml", "/repo") }
        assertContains(error.message!!, "has no 'images' map")
    }

    @Test
    fun `invalid YAML is rejected with the file name`() {
        val error = assertFailsWith<CatalogException> { ImageCatalog.parse("images: [\n", "x.yaml", "/repo") }
        assertContains(error.message!!, "x.yaml is not valid YAML")
    }

    @Test
    fun `the checked-in catalog parses and has the images the project needs`() {
        val repo = Path.of("../..").toAbsolutePath().normalize()
        val catalog = ImageCatalog.load(repo.resolve("local-cluster/images.yaml"), repo)
        listOf("danki/sample-service:dev", "danki/operator:dev", "danki/http-status:dev").forEach {
            assertContains(catalog.names, it)
        }
        assertEquals("$repo/bin/k6", catalog.find("danki/operator:dev")!!.env["DANKI_K6_BINARY"])
    }
}
