package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import java.time.Duration
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class ActiveDeadlineTest {
    private val here = Instant.parse("2026-11-23T10:00:00Z")

    private fun pod(deadline: Long?, startTime: String? = null): Pod =
        PodBuilder()
            .withNewSpec()
            .withActiveDeadlineSeconds(deadline)
            .endSpec()
            .withNewStatus()
            .withStartTime(startTime)
            .endStatus()
            .build()

    @Test
    fun `a pod without activeDeadlineSeconds has no deadline`() {
        assertNull(ActiveDeadline.remaining(pod(null), here, here.plusSeconds(3600)))
    }

    @Test
    fun `the deadline counts from the pod's startTime in the API`() {
        val pod = pod(60, startTime = "2026-11-23T09:59:30Z")
        assertEquals(Duration.ofSeconds(20), ActiveDeadline.remaining(pod, here, here.plusSeconds(10)))
    }

    @Test
    fun `until the API has a startTime the agent's own start counts, and past it the time left is negative`() {
        assertEquals(Duration.ofSeconds(-1), ActiveDeadline.remaining(pod(2), here, here.plusSeconds(3)))
    }
}
