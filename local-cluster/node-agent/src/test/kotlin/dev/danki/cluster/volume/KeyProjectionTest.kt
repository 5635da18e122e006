package dev.danki.cluster.volume

import io.fabric8.kubernetes.api.model.KeyToPath
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class KeyProjectionTest {
    private val data = mapOf("script.js" to "export default".toByteArray(), "limits" to "5".toByteArray())

    private fun source(items: List<KeyToPath> = emptyList(), defaultMode: Int? = null, optional: Boolean = false) =
        KeySource(ConfigKind.CONFIG_MAP, "k6-script", items, defaultMode, optional)

    private fun List<VolumeFile>.described() =
        map { file ->
            val mode = Integer.toOctalString(file.mode)
            "${file.path}:${String(file.content)}:$mode"
        }

    @Test
    fun `without items every key becomes a file of its name with mode 0644`() {
        val files = KeyProjection.files(source(), data).described()
        assertEquals(listOf("limits:5:644", "script.js:export default:644"), files)
    }

    @Test
    fun `defaultMode applies to every file`() {
        val files = KeyProjection.files(source(defaultMode = "400".toInt(8)), data)
        assertEquals(listOf("400", "400"), files.map { Integer.toOctalString(it.mode) })
    }

    @Test
    fun `items pick keys, name their paths and may set their own mode`() {
        val items =
            listOf(
                KeyToPath("script.js", "755".toInt(8), "scripts/run.js"),
                KeyToPath("limits", null, "limits.txt"),
            )
        val files = KeyProjection.files(source(items, defaultMode = "440".toInt(8)), data)
        assertEquals(listOf("scripts/run.js:export default:755", "limits.txt:5:440"), files.described())
    }

    @Test
    fun `a missing object stops the container and names it`() {
        val error = assertFailsWith<VolumeUnavailableException> { KeyProjection.files(source(), null) }
        assertEquals("configmap \"k6-script\" not found", error.message)
    }

    @Test
    fun `a missing optional object gives an empty volume`() {
        assertEquals(emptyList(), KeyProjection.files(source(optional = true), null))
    }

    @Test
    fun `a missing item key stops the container unless the volume is optional`() {
        val items = listOf(KeyToPath("absent", null, "absent.txt"), KeyToPath("limits", null, "limits.txt"))
        val error = assertFailsWith<VolumeUnavailableException> { KeyProjection.files(source(items), data) }
        assertContains(error.message.orEmpty(), "has no key \"absent\"")
        assertEquals(listOf("limits.txt:5:644"), KeyProjection.files(source(items, optional = true), data).described())
    }

    @Test
    fun `a path that would leave the volume is refused`() {
        val items = listOf(KeyToPath("limits", null, "../../etc/passwd"))
        assertFailsWith<VolumeUnavailableException> { KeyProjection.files(source(items), data) }
    }

    @Test
    fun `secret volumes name the secret in their messages`() {
        val secret = KeySource(ConfigKind.SECRET, "token", emptyList(), null, false)
        val error = assertFailsWith<VolumeUnavailableException> { KeyProjection.files(secret, null) }
        assertEquals("secret \"token\" not found", error.message)
    }
}
