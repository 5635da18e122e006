package dev.danki.cluster.pod

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ProcessTreeTest {
    private val started = mutableListOf<Process>()

    @AfterTest
    fun `kill what a failed test left`() = started.forEach { it.destroyForcibly() }

    /** A shell that ignores SIGTERM, as a hung JVM does; returns once the trap is in place. */
    private fun ignoringSigterm(): Process {
        val process = ProcessBuilder("sh", "-c", "trap '' TERM; echo ready; exec sleep 600").start()
        started += process
        assertEquals("ready", process.inputStream.bufferedReader().readLine())
        return process
    }

    @Test
    fun `cancelled during the grace wait, terminate still sends SIGKILL`() =
        runBlocking {
            val process = ignoringSigterm()
            val stopping = launch(Dispatchers.IO) { ProcessTree.terminate(process, Duration.ofMinutes(10)) }
            delay(300)
            assertTrue(process.isAlive, "SIGTERM is ignored, so the process waits out its grace")
            stopping.cancelAndJoin()
            assertTrue(process.waitFor(5, TimeUnit.SECONDS), "the process is gone after the cancelled terminate")
            assertEquals(128 + 9, process.exitValue(), "killed by SIGKILL")
        }

    @Test
    fun `a process that ignores SIGTERM is killed when its grace ends`() =
        runBlocking {
            val process = ignoringSigterm()
            var signalled = false
            ProcessTree.terminate(process, Duration.ofMillis(200)) { signalled = true }
            assertTrue(signalled)
            assertEquals(128 + 9, process.exitValue())
        }

    @Test
    fun `a process that honours SIGTERM ends within its grace`() =
        runBlocking {
            val process = ProcessBuilder("sleep", "600").start().also { started += it }
            val began = System.nanoTime()
            ProcessTree.terminate(process, Duration.ofMinutes(10))
            assertEquals(128 + 15, process.exitValue())
            assertTrue(System.nanoTime() - began < Duration.ofSeconds(5).toNanos())
        }
}
