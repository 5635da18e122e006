package dev.danki.cluster.pod

import dev.danki.cluster.catalog.CatalogImage
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertEquals

class LaunchSpecTest {
    private val image = CatalogImage(listOf("java", "-jar", "app.jar"), args = listOf("--default"))
    private val repo = Path.of("/repo")

    private fun argv(container: Container) = LaunchSpec.of(container, image, mapOf("PORT" to "9090"), repo).argv

    @Test
    fun `no command or args runs the image's command and default args`() {
        assertEquals(listOf("java", "-jar", "app.jar", "--default"), argv(ContainerBuilder().build()))
    }

    @Test
    fun `args replace the image's default args`() {
        val container = ContainerBuilder().withArgs("--port=$(PORT)").build()
        assertEquals(listOf("java", "-jar", "app.jar", "--port=9090"), argv(container))
    }

    @Test
    fun `command replaces the image's command and drops its default args`() {
        val container = ContainerBuilder().withCommand("sh", "-c", "echo $(NOPE)").build()
        assertEquals(listOf("sh", "-c", "echo $(NOPE)"), argv(container))
    }

    @Test
    fun `working dir defaults to the repository root`() {
        assertEquals(repo, LaunchSpec.of(ContainerBuilder().build(), image, emptyMap(), repo).workingDir)
        assertEquals(
            Path.of("/repo/sub"),
            LaunchSpec.of(ContainerBuilder().withWorkingDir("sub").build(), image, emptyMap(), repo).workingDir,
        )
    }
}
