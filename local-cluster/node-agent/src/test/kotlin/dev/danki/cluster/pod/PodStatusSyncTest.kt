package dev.danki.cluster.pod

import dev.danki.cluster.status.ContainerSnapshot
import dev.danki.cluster.status.PodObservation
import dev.danki.cluster.status.PodStatusPatch
import dev.danki.cluster.status.RunState
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.client.utils.Serialization
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals

class PodStatusSyncTest {
    private val now = Instant.parse("2026-11-23T10:00:00Z")
    private val sent = mutableListOf<String>()
    private var version = 10

    private fun pod(resourceVersion: Int): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("shop")
            .withResourceVersion("$resourceVersion")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec()
            .build()

    /** The API server: takes the patch, answers the pod with the patch's status and a new version. */
    private val sync =
        PodStatusSync { pod, body ->
            sent += body
            val answer = pod(++version)
            answer.status =
                Serialization.unmarshal(
                    Serialization.asJson(Serialization.unmarshal(body, Map::class.java)["status"]),
                    io.fabric8.kubernetes.api.model.PodStatus::class.java,
                )
            answer
        }

    private fun patch(on: Pod, ready: Boolean): PodStatusPatch {
        val app = ContainerSnapshot("app", "image", RunState.Running(now), started = true, ready = ready)
        return PodStatusPatch.build(on, PodObservation(listOf(app), "198.18.0.2", "198.18.0.1", now), now)
    }

    @Test
    fun `a check right after a write, before the informer caught up, sends nothing`() {
        val informed = pod(10)
        assertEquals(true, sync.write(sync.current(informed), patch(sync.current(informed), ready = true)))
        val again = sync.current(informed)
        assertEquals(false, sync.write(again, patch(again, ready = true)))
        assertEquals(1, sent.size)
    }

    @Test
    fun `a change is sent, and a version the informer shows later is trusted again`() {
        val informed = pod(10)
        sync.write(sync.current(informed), patch(informed, ready = false))
        val before = sync.current(informed)
        assertEquals(true, sync.write(before, patch(before, ready = true)))
        val overwritten = pod(99)
        assertEquals(overwritten, sync.current(overwritten), "a newer version from the informer wins")
        val written = sync.write(overwritten, patch(overwritten, ready = true))
        assertEquals(true, written, "its missing status is written again")
        assertEquals(3, sent.size)
    }
}
