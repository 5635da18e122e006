package dev.danki.cluster.volume

import java.nio.file.Files
import java.nio.file.Path
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class VolumeDirectoryTest {
    private val dir: Path = Files.createTempDirectory("volume-directory-test")

    @AfterTest
    fun cleanUp() = deleteTree(dir)

    private fun file(path: String, text: String, mode: String = "644") =
        VolumeFile(path, text.toByteArray(), mode.toInt(8))

    private fun modeOf(path: Path) = Files.getPosixFilePermissions(path)

    @Test
    fun `files are reached through the data link, with their modes`() {
        VolumeDirectory(dir).write(listOf(file("a.txt", "one", "600"), file("conf/b.yaml", "two")))
        assertEquals("one", Files.readString(dir.resolve("a.txt")))
        assertEquals("two", Files.readString(dir.resolve("conf/b.yaml")))
        assertTrue(Files.isSymbolicLink(dir.resolve("a.txt")))
        assertTrue(Files.isSymbolicLink(dir.resolve(VolumeDirectory.DATA)))
        assertEquals(VolumeDirectory.permissions("600".toInt(8)), modeOf(dir.resolve("a.txt")))
        assertEquals(
            "rw-------",
            java.nio.file.attribute.PosixFilePermissions
                .toString(modeOf(dir.resolve("a.txt"))),
        )
    }

    @Test
    fun `an update swaps the whole version and drops keys that went away`() {
        val volume = VolumeDirectory(dir)
        volume.write(listOf(file("a.txt", "one"), file("old.txt", "gone soon")))
        val first = Files.readSymbolicLink(dir.resolve(VolumeDirectory.DATA))
        volume.write(listOf(file("a.txt", "changed")))
        assertEquals("changed", Files.readString(dir.resolve("a.txt")))
        assertFalse(Files.exists(dir.resolve("old.txt"), java.nio.file.LinkOption.NOFOLLOW_LINKS))
        assertFalse(Files.exists(dir.resolve(first)), "the old version is removed")
    }

    @Test
    fun `writing the same files again keeps the current version`() {
        val volume = VolumeDirectory(dir)
        volume.write(listOf(file("a.txt", "one")))
        val first = Files.readSymbolicLink(dir.resolve(VolumeDirectory.DATA))
        volume.write(listOf(file("a.txt", "one")))
        assertEquals(first, Files.readSymbolicLink(dir.resolve(VolumeDirectory.DATA)))
    }

    @Test
    fun `deleting a tree removes a link to a folder, never what it points to`() {
        val outside = Files.createTempDirectory("volume-directory-outside")
        Files.writeString(outside.resolve("keep.txt"), "keep")
        val emptyDir = Files.createDirectories(dir.resolve("volumes/scratch"))
        Files.createSymbolicLink(emptyDir.resolve("escape"), outside)
        deleteTree(dir.resolve("volumes"))
        assertFalse(Files.exists(dir.resolve("volumes")))
        assertEquals("keep", Files.readString(outside.resolve("keep.txt")))
        deleteTree(outside)
    }
}
