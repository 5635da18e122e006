package dev.danki.cluster.status

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import io.fabric8.kubernetes.api.model.PodStatus
import io.fabric8.kubernetes.client.utils.Serialization
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals

class StatusComparisonTest {
    private val json = ObjectMapper()
    private val now = Instant.parse("2026-11-23T10:00:00.123456Z")
    private val gate = PodConditionBuilder().withType("danki.dev/warmed").withStatus("True").build()
    private val pod: Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .addNewReadinessGate("danki.dev/warmed")
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .addToConditions(gate)
            .withQosClass("BestEffort")
            .endStatus()
            .build()
    private val running =
        ContainerSnapshot("app", "danki/http-status:dev", RunState.Running(now), started = true, ready = true)

    private fun patch(on: Pod, container: ContainerSnapshot = running, at: Instant = now) =
        PodStatusPatch.build(on, PodObservation(listOf(container), "198.18.0.2", "198.18.0.1", now), at)

    /** [on] after the API server applied [patch]: fields replaced, nulls deleted, conditions merged by type. */
    private fun served(on: Pod, patch: PodStatusPatch): Pod {
        val status = json.readTree(Serialization.asJson(on.status)) as ObjectNode
        patch.toTree().get("status").properties().forEach { (key, value) ->
            if (key == "conditions") {
                val merged =
                    status.get("conditions").associateBy(::typeOf) + value.associateBy(::typeOf)
                status.putArray("conditions").addAll(merged.values.map(::withoutNulls))
            } else {
                status.set<JsonNode>(key, withoutNulls(value))
            }
        }
        val served = Serialization.unmarshal(Serialization.asJson(on), Pod::class.java)
        served.status = Serialization.unmarshal(status.toString(), PodStatus::class.java)
        return served
    }

    private fun typeOf(condition: JsonNode) = condition.get("type").asText()

    private fun withoutNulls(node: JsonNode): JsonNode =
        when {
            node.isObject -> {
                json.createObjectNode().also { copy ->
                    node.properties().filter { !it.value.isNull }.forEach { (key, value) ->
                        copy.set<JsonNode>(key, withoutNulls(value))
                    }
                }
            }

            node.isArray -> {
                json.createArrayNode().also { copy -> node.forEach { copy.add(withoutNulls(it)) } }
            }

            else -> {
                node
            }
        }

    @Test
    fun `a status the API server holds needs no write, even 40 s later`() {
        val stored = served(pod, patch(pod))
        assertEquals(true, StatusComparison.holds(stored, patch(stored)))
        assertEquals(true, StatusComparison.holds(stored, patch(stored, at = now.plusSeconds(40))))
    }

    @Test
    fun `a change of readiness needs a write`() {
        val stored = served(pod, patch(pod))
        assertEquals(false, StatusComparison.holds(stored, patch(stored, running.copy(ready = false))))
    }

    @Test
    fun `a Ready condition that kept the reason it had while False needs a write that deletes it`() {
        val unready = served(pod, patch(pod, running.copy(ready = false)))
        val ready = patch(unready)
        val stale =
            served(unready, ready).also { p ->
                p.status.conditions.filter { it.type == "Ready" }.forEach {
                    it.reason =
                        "ContainersNotReady"
                }
            }
        assertEquals(false, StatusComparison.holds(stale, ready))
        val readyCondition = ready.toTree().at("/status/conditions").first { it.get("type").asText() == "Ready" }
        assertEquals(true, readyCondition.get("reason").isNull, "the patch must send reason: null")
        assertEquals(true, StatusComparison.holds(served(unready, ready), ready))
    }

    @Test
    fun `a container state left over from another kind needs a write`() {
        val stored = served(pod, patch(pod))
        stored.status.containerStatuses[0]
            .state.waiting =
            io.fabric8.kubernetes.api.model
                .ContainerStateWaiting("old", "ContainerCreating")
        assertEquals(false, StatusComparison.holds(stored, patch(stored)))
    }

    @Test
    fun `conditions of other controllers do not matter`() {
        val stored = served(pod, patch(pod))
        stored.status.conditions.add(PodConditionBuilder().withType("example.com/other").withStatus("False").build())
        assertEquals(true, StatusComparison.holds(stored, patch(stored)))
    }
}
