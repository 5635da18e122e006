package dev.danki.cluster.status

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class PodConditionsTest {
    private val now = Instant.parse("2026-11-22T04:00:00Z")
    private val gate = "danki.dev/warmed"

    private fun pod(gates: List<String> = emptyList(), conditions: Map<String, String> = emptyMap()): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .also { spec -> gates.forEach { spec.addNewReadinessGate(it) } }
            .endSpec()
            .withNewStatus()
            .withConditions(
                conditions.map { (type, status) ->
                    PodConditionBuilder()
                        .withType(type)
                        .withStatus(status)
                        .withLastTransitionTime("2026-11-22T03:00:00Z")
                        .build()
                },
            ).endStatus()
            .build()

    private fun running(ready: Boolean): ContainerSnapshot {
        val state = RunState.Running(now)
        return ContainerSnapshot("app", "img", state, started = true, ready = ready)
    }

    private fun conditionsOf(pod: Pod, ready: Boolean) =
        PodConditions.compute(pod, listOf(running(ready)), PodPhases.RUNNING, now).associateBy { it.type }

    private fun gated(status: String) = pod(gates = listOf(gate), conditions = mapOf(gate to status))

    private fun statusOf(pod: Pod, ready: Boolean): Map<String, String> =
        conditionsOf(pod, ready).mapValues { it.value.status }

    @Test
    fun `pod without gates is Ready when its containers are`() {
        assertEquals(
            mapOf("PodScheduled" to "True", "Initialized" to "True", "ContainersReady" to "True", "Ready" to "True"),
            statusOf(pod(), ready = true),
        )
    }

    @Test
    fun `unready container keeps ContainersReady and Ready False`() {
        val conditions = conditionsOf(pod(), ready = false)
        assertEquals("False", conditions.getValue("ContainersReady").status)
        assertEquals("False", conditions.getValue("Ready").status)
        assertEquals("ContainersNotReady", conditions.getValue("Ready").reason)
        assertEquals("containers with unready status: [app]", conditions.getValue("Ready").message)
    }

    @Test
    fun `missing gate condition keeps Ready False although containers are ready`() {
        val conditions =
            PodConditions
                .compute(
                    pod(gates = listOf(gate)),
                    listOf(running(true)),
                    PodPhases.RUNNING,
                    now,
                ).associateBy { it.type }
        assertEquals("True", conditions.getValue("ContainersReady").status)
        assertEquals("False", conditions.getValue("Ready").status)
        assertEquals("ReadinessGatesNotReady", conditions.getValue("Ready").reason)
        val expected = "corresponding condition of pod readiness gate \"$gate\" does not exist."
        assertEquals(expected, conditions.getValue("Ready").message)
    }

    @Test
    fun `gate condition False keeps Ready False`() {
        assertEquals("False", statusOf(gated("False"), ready = true)["Ready"])
    }

    @Test
    fun `gate condition True makes Ready True`() {
        assertEquals("True", statusOf(gated("True"), ready = true)["Ready"])
    }

    @Test
    fun `every gate must be True`() {
        val pod = pod(gates = listOf(gate, "other/gate"), conditions = mapOf(gate to "True", "other/gate" to "Unknown"))
        assertEquals("False", statusOf(pod, ready = true)["Ready"])
    }

    @Test
    fun `gate True does not make Ready True while containers are unready`() {
        assertEquals("False", statusOf(gated("True"), ready = false)["Ready"])
    }

    @Test
    fun `only owned conditions are computed, never the gate`() {
        val types =
            PodConditions
                .compute(
                    pod(gates = listOf(gate), conditions = mapOf(gate to "True")),
                    listOf(running(true)),
                    PodPhases.RUNNING,
                    now,
                ).map {
                    it.type
                }
        assertEquals(PodConditions.OWNED, types.toSet())
    }

    @Test
    fun `unchanged condition keeps its transition time, a changed one gets now`() {
        val pod = pod(conditions = mapOf("Ready" to "True", "ContainersReady" to "False"))
        val conditions = conditionsOf(pod, ready = true)
        assertEquals("2026-11-22T03:00:00Z", conditions.getValue("Ready").lastTransitionTime)
        assertEquals(now.toString(), conditions.getValue("ContainersReady").lastTransitionTime)
    }

    @Test
    fun `completed pod is not Ready`() {
        val done = ContainerSnapshot("app", "img", RunState.Terminated(0, "Completed", now, now))
        val conditions = PodConditions.compute(pod(), listOf(done), PodPhases.SUCCEEDED, now).associateBy { it.type }
        assertEquals("PodCompleted", conditions.getValue("Ready").reason)
        assertEquals("False", conditions.getValue("Ready").status)
    }

    @Test
    fun `no gate problem without gates`() {
        assertNull(PodConditions.readinessGateProblem(pod()))
    }
}
