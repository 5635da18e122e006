package dev.danki.cluster.volume

import java.nio.file.Files
import java.nio.file.Path

/**
 * Deletes [root] and everything below it without following symbolic links: an emptyDir holds
 * whatever a container wrote, and a link in it to `/` must lose the link, not the host.
 */
fun deleteTree(root: Path) {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return
    Files.walk(root).use { paths -> paths.sorted(Comparator.reverseOrder()).forEach { Files.deleteIfExists(it) } }
}
