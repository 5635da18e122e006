package dev.danki.cluster.config

import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class AgentArgumentsTest {
    private val complete =
        arrayOf(
            "--kubeconfig=/c/admin.kubeconfig",
            "--node-name=danki0-node",
            "--instance=0",
            "--bridge=danki0",
            "--bridge-ip=198.18.0.1",
            "--pod-cidr=198.18.0.0/24",
            "--api-port=6443",
            "--ca-file=/c/pki/ca.crt",
            "--repo=/repo",
            "--catalog=/repo/local-cluster/images.yaml",
            "--state-dir=/c/agent",
        )

    @Test
    fun `complete arguments give a config`() {
        val config = AgentArguments.parse(complete)
        assertEquals("danki0-node", config.nodeName)
        assertEquals(6443, config.apiPort)
        assertEquals(Path.of("/repo"), config.repo)
        assertEquals("danki0-", config.netnsPrefix)
        assertEquals("dk0v", config.vethPrefix)
    }

    @Test
    fun `every problem is reported at once`() {
        val error =
            assertFailsWith<BadArgumentsException> {
                AgentArguments.parse(
                    arrayOf("--instance=x", "--api-port=99999", "stray", "--colour=red"),
                )
            }
        assertContains(error.problems, "missing --node-name")
        assertContains(error.problems, "--instance must be a number from 0 to 199")
        assertContains(error.problems, "--api-port must be a port number")
        assertContains(error.problems, "argument 'stray' is not of the form --name=value")
        assertContains(error.problems, "unknown argument --colour")
    }
}
