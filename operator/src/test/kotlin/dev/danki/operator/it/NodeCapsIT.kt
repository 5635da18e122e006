package dev.danki.operator.it

import dev.danki.operator.warmup.NodeCpuCaps
import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/** `nodeConcurrency: auto` on a real API server: a node's cap from the allocatable CPU in its status. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeCapsIT {
    private val client = TestApiServer.client
    private val nodes =
        listOf(
            "danki-it-node-2cpu" to "2",
            "danki-it-node-8cpu" to "8",
            "danki-it-node-12500m" to "12500m",
        )

    @Test
    fun `a node's cap is one warm-up per two cores of its allocatable CPU, and an unknown node gets the fallback`() {
        nodes.forEach { (name, cpu) ->
            client
                .nodes()
                .resource(
                    NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build(),
                ).create()
            client
                .nodes()
                .withName(name)
                .editStatus { it.apply { status.allocatable = mapOf("cpu" to Quantity(cpu)) } }
        }
        val caps = NodeCpuCaps.reading(client)
        caps.of("danki-it-node-2cpu") shouldBe 1
        caps.of("danki-it-node-8cpu") shouldBe 4
        caps.of("danki-it-node-12500m") shouldBe 6
        caps.of("danki-it-no-such-node") shouldBe NodeCpuCaps.FALLBACK
    }

    @AfterAll
    fun cleanUp() {
        nodes.forEach { (name, _) -> client.nodes().withName(name).delete() }
    }
}
