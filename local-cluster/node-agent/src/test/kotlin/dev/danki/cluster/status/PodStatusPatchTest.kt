package dev.danki.cluster.status

import com.fasterxml.jackson.databind.ObjectMapper
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals

class PodStatusPatchTest {
    private val now = Instant.parse("2026-11-22T04:00:00Z")
    private val pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .addNewReadinessGate("danki.dev/warmed")
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .addToConditions(PodConditionBuilder().withType("danki.dev/warmed").withStatus("True").build())
            .endStatus()
            .build()

    private val running =
        ContainerSnapshot("app", "danki/http-status:dev", RunState.Running(now), started = true, ready = true)

    private fun observed(containers: List<ContainerSnapshot>, failure: PodFailure? = null) =
        PodObservation(containers, "198.18.0.2", "198.18.0.1", now, failure)

    @Test
    fun `patch carries the kubelet's fields and never the gate condition`() {
        val patch = PodStatusPatch.build(pod, observed(listOf(running)), now)
        val json = ObjectMapper().readTree(patch.toJson())
        val status = json.get("status")
        assertEquals("Running", status.get("phase").asText())
        assertEquals("198.18.0.2", status.get("podIP").asText())
        assertEquals(
            "198.18.0.2",
            status
                .get("podIPs")
                .get(0)
                .get("ip")
                .asText(),
        )
        assertEquals(
            listOf("PodScheduled", "Initialized", "ContainersReady", "Ready"),
            status.get("conditions").map { it.get("type").asText() },
        )
        val container = status.get("containerStatuses").get(0)
        assertEquals(true, container.get("ready").asBoolean())
        assertEquals(true, container.get("started").asBoolean())
        assertEquals(0, container.get("restartCount").asInt())
        assertEquals(
            now.toString(),
            container
                .get("state")
                .get("running")
                .get("startedAt")
                .asText(),
        )
    }

    @Test
    fun `times have whole seconds and states not taken are sent as null`() {
        val later = now.plusMillis(1234)
        val container = running.copy(state = RunState.Running(later))
        val patch = PodStatusPatch.build(pod, observed(listOf(container)), later)
        val status = ObjectMapper().readTree(patch.toJson()).get("status")
        val state = status.get("containerStatuses").get(0).get("state")
        assertEquals("2026-11-22T04:00:01Z", state.get("running").get("startedAt").asText())
        assertEquals(true, state.get("waiting").isNull)
        assertEquals(true, state.get("terminated").isNull)
    }

    @Test
    fun `a pod failed by the node is Failed with its reason and message, whatever its containers do`() {
        val failure = PodFailure("DeadlineExceeded", "Pod was active on the node longer than the specified deadline")
        val patch = PodStatusPatch.build(pod, observed(listOf(running), failure), now)
        val status = ObjectMapper().readTree(patch.toJson()).get("status")
        assertEquals("Failed", status.get("phase").asText())
        assertEquals("DeadlineExceeded", status.get("reason").asText())
        assertEquals(failure.message, status.get("message").asText())
    }
}
