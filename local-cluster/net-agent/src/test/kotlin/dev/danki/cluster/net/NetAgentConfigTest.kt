package dev.danki.cluster.net

import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class NetAgentConfigTest {
    private val good =
        arrayOf(
            "--kubeconfig=/c/admin.kubeconfig",
            "--instance=21",
            "--port=32190",
            "--state-file=/c/net-agent/attachments.json",
            "--api-endpoint=198.18.21.1:6464",
            "--service-cidr=10.96.0.0/12",
        )

    @Test
    fun `every argument is read, and the table and bridges are the instance's`() {
        val config = NetAgentConfig.parse(good)
        assertEquals(Path.of("/c/net-agent/attachments.json"), config.stateFile)
        assertEquals(Endpoint("198.18.21.1", 6464), config.apiEndpoint)
        assertEquals("danki-r21", config.table)
        assertEquals("dkr21-*", config.bridges)
    }

    @Test
    fun `every problem is reported at once`() {
        val args = arrayOf("--instance=32", "--port=x", "--api-endpoint=localhost", "--colour=blue", "stray")
        val problems = assertFailsWith<BadArgumentsException> { NetAgentConfig.parse(args) }.problems
        assertEquals(
            listOf(
                "unknown argument --colour",
                "argument 'stray' is not of the form --name=value",
                "missing --kubeconfig",
                "missing --state-file",
                "missing --service-cidr",
                "--instance must be a number from 0 to 31",
                "--port must be a port number",
                "--api-endpoint must be ip:port",
            ),
            problems,
        )
    }
}
