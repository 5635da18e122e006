package dev.danki.cluster.net

import java.nio.file.Files
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class AttachmentStoreTest {
    private val file = Files.createTempDirectory("net-agent").resolve("state/attachments.json")
    private val web = Attachment("c0ffee", "shop", "web", "u-web", "/run/netns/cni-1", "198.19.9.4")

    @Test
    fun `a restarted agent reads what the previous one attached, and a removal is kept too`() {
        val first = AttachmentStore(file)
        first.put(web)
        first.put(web.copy(containerId = "beef", name = "db", uid = "u-db"))
        assertEquals(web, first.remove("c0ffee"))
        assertNull(first.remove("c0ffee"))
        assertEquals(listOf("db"), AttachmentStore(file).load().map { it.name })
    }

    @Test
    fun `no file is no attachments`() {
        assertEquals(emptyList(), AttachmentStore(file).load())
    }

    @Test
    fun `a pod's node is the first address of its range`() {
        assertEquals("198.19.9.1", web.nodeIp())
    }
}
