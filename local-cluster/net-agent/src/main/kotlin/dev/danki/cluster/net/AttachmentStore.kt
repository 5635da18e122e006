package dev.danki.cluster.net

import com.fasterxml.jackson.core.type.TypeReference
import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.ObjectMapper
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption

/**
 * The attachments of the net agent, in a JSON file rewritten (atomically) on every change, so a
 * restarted agent finds the pods' network namespaces again and reloads their rules.
 */
class AttachmentStore(
    private val file: Path,
) {
    private val mapper = ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
    private val byContainer = LinkedHashMap<String, Attachment>()

    /** Reads the file of an earlier run (none: nothing); returns what it held. */
    @Synchronized
    fun load(): List<Attachment> {
        byContainer.clear()
        if (Files.exists(file)) {
            mapper.readValue(file.toFile(), LIST).forEach { byContainer[it.containerId] = it }
        }
        return byContainer.values.toList()
    }

    @Synchronized
    fun put(attachment: Attachment) {
        byContainer[attachment.containerId] = attachment
        save()
    }

    /** Removes and returns the attachment of [containerId], if any. */
    @Synchronized
    fun remove(containerId: String): Attachment? = byContainer.remove(containerId)?.also { save() }

    @Synchronized
    fun all(): List<Attachment> = byContainer.values.toList()

    private fun save() {
        Files.createDirectories(file.parent)
        val temporary = file.resolveSibling("${file.fileName}.tmp")
        mapper.writeValue(temporary.toFile(), byContainer.values.toList())
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
    }

    private companion object {
        val LIST = object : TypeReference<List<Attachment>>() {}
    }
}
