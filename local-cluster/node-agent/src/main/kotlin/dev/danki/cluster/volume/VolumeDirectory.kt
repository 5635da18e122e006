package dev.danki.cluster.volume

import java.nio.file.Files
import java.nio.file.LinkOption
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.nio.file.attribute.PosixFilePermission
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/**
 * A configMap or secret volume's folder, laid out as the kubelet's atomic writer lays it out: the
 * files live in a timestamped folder, `..data` links to it, and each top-level name links through
 * `..data`. A new version is written beside the old one and `..data` is swapped with one rename,
 * so a reader (another container of the pod) never sees half of an update.
 */
class VolumeDirectory(
    private val dir: Path,
) {
    /** Makes the folder show exactly [files]; does nothing when it already does. */
    fun write(files: List<VolumeFile>) {
        Files.createDirectories(dir)
        if (shows(files)) return
        val version = dir.resolve("..${LocalDateTime.now().format(VERSION_FORMAT)}")
        Files.createDirectory(version)
        files.forEach { file ->
            val target = version.resolve(file.path)
            Files.createDirectories(target.parent)
            Files.write(target, file.content)
            Files.setPosixFilePermissions(target, permissions(file.mode))
        }
        val swap = dir.resolve(DATA_SWAP)
        Files.deleteIfExists(swap)
        Files.createSymbolicLink(swap, version.fileName)
        Files.move(swap, dir.resolve(DATA), StandardCopyOption.ATOMIC_MOVE)
        linkTopLevelNames(files.map { it.path.substringBefore('/') }.toSet())
        removeOldVersions(keep = version.fileName.toString())
    }

    /** Whether `..data` already holds exactly [files], with the same bytes and modes. */
    private fun shows(files: List<VolumeFile>): Boolean {
        val data = dir.resolve(DATA)
        if (!Files.isDirectory(data)) return false
        val present = Files.walk(data.toRealPath()).use { paths -> paths.filter { Files.isRegularFile(it) }.count() }
        if (present != files.size.toLong()) return false
        return files.all { file ->
            val path = data.resolve(file.path)
            Files.isRegularFile(path) &&
                Files.readAllBytes(path).contentEquals(file.content) &&
                Files.getPosixFilePermissions(path) == permissions(file.mode)
        }
    }

    private fun linkTopLevelNames(names: Set<String>) {
        names.forEach { name ->
            val link = dir.resolve(name)
            if (!Files.isSymbolicLink(link)) Files.createSymbolicLink(link, Path.of(DATA, name))
        }
        Files.list(dir).use { entries ->
            entries
                .filter { Files.isSymbolicLink(it) && !it.fileName.toString().startsWith("..") }
                .filter { it.fileName.toString() !in names }
                .forEach { Files.delete(it) }
        }
    }

    private fun removeOldVersions(keep: String) {
        Files.list(dir).use { entries ->
            entries
                .filter { Files.isDirectory(it, LinkOption.NOFOLLOW_LINKS) }
                .filter { it.fileName.toString().startsWith("..") && it.fileName.toString() != keep }
                .forEach { it.toFile().deleteRecursively() }
        }
    }

    companion object {
        const val DATA = "..data"
        private const val DATA_SWAP = "..data_tmp"
        private val VERSION_FORMAT: DateTimeFormatter = DateTimeFormatter.ofPattern("yyyy_MM_dd_HH_mm_ss.SSSSSSSSS")

        /** The permission set of Unix [mode] bits (only the lower nine count, as in the kubelet). */
        fun permissions(mode: Int): Set<PosixFilePermission> =
            PosixFilePermission.entries.filterIndexed { index, _ -> mode and (1 shl (BITS - 1 - index)) != 0 }.toSet()

        private const val BITS = 9
    }
}
