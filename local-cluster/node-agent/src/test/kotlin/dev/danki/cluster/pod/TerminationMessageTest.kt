package dev.danki.cluster.pod

import dev.danki.cluster.volume.deleteTree
import io.fabric8.kubernetes.api.model.ContainerBuilder
import java.nio.file.Files
import java.nio.file.Path
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class TerminationMessageTest {
    private val dir: Path = Files.createTempDirectory("termination-message-test")
    private val log: Path = dir.resolve("app.log")

    @AfterTest
    fun cleanUp() = deleteTree(dir)

    private fun message(policy: String? = null): TerminationMessage {
        val container = ContainerBuilder().withName("app").withTerminationMessagePolicy(policy).build()
        return TerminationMessage.of(dir, container).also { it.reset() }
    }

    @Test
    fun `the file's content is the message, also for a run that succeeded`() {
        val message = message()
        Files.writeString(message.file, "checks passed: 3\n")
        assertEquals("checks passed: 3\n", message.read(0, log, 0))
        assertEquals("/dev/termination-log", message.path)
    }

    @Test
    fun `only the last 4096 bytes of the file are kept`() {
        val message = message()
        Files.writeString(message.file, "x".repeat(5000) + "end")
        val read = message.read(1, log, 0).orEmpty()
        assertEquals(4096, read.length)
        assertEquals(true, read.endsWith("end"))
    }

    @Test
    fun `an empty file and policy File give no message`() {
        Files.writeString(log, "boom\n")
        assertNull(message().read(1, log, 0))
    }

    @Test
    fun `FallbackToLogsOnError takes this run's last 80 lines of log when the file is empty and the run failed`() {
        Files.writeString(log, "an earlier run\n")
        val start = Files.size(log)
        Files.writeString(log, (1..100).joinToString("") { "line $it\n" }, java.nio.file.StandardOpenOption.APPEND)
        val read = message(TerminationMessage.FALLBACK_TO_LOGS).read(2, log, start).orEmpty()
        assertEquals((21..100).joinToString("") { "line $it\n" }, read)
    }

    @Test
    fun `FallbackToLogsOnError keeps at most 2048 bytes of the log`() {
        Files.writeString(log, (1..60).joinToString("") { "${"y".repeat(60)} $it\n" })
        val read = message(TerminationMessage.FALLBACK_TO_LOGS).read(1, log, 0).orEmpty()
        assertEquals(2048, read.toByteArray().size)
        assertEquals(true, read.endsWith(" 60\n"))
    }

    @Test
    fun `FallbackToLogsOnError uses neither a successful run's log nor the log when the file has text`() {
        Files.writeString(log, "output\n")
        val message = message(TerminationMessage.FALLBACK_TO_LOGS)
        assertNull(message.read(0, log, 0))
        Files.writeString(message.file, "from the file")
        assertEquals("from the file", message.read(1, log, 0))
    }
}
