package dev.danki.cluster.network

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class HostCommandTest {
    @Test
    fun `a hung command is stopped at its time limit`() {
        val started = System.nanoTime()
        val error = assertFailsWith<HostCommandException> { HostCommand.runWithin(1, null, "sleep", "30") }
        val seconds = (System.nanoTime() - started) / 1e9
        assertTrue("timed out after 1 s" in error.message.orEmpty(), error.message)
        assertTrue(seconds < 10, "stopped after $seconds s, not at the 1 s limit")
    }

    @Test
    fun `a command that leaves a child holding its output returns when it exits`() {
        // Reading a pipe to its end waited for the child's 30 s (the net agent's stall).
        val started = System.nanoTime()
        val output = HostCommand.runWithin(20, "in", "sh", "-c", "cat; echo out; sleep 30 &")
        val seconds = (System.nanoTime() - started) / 1e9
        assertEquals("inout\n", output)
        assertTrue(seconds < 10, "returned after $seconds s")
    }

    @Test
    fun `a failing command throws with its output`() {
        val error = assertFailsWith<HostCommandException> { HostCommand.run("sh", "-c", "echo why >&2; exit 3") }
        assertTrue("failed (3): why" in error.message.orEmpty(), error.message)
    }
}
