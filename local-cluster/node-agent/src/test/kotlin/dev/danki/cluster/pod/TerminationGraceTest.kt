package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.ProbeBuilder
import kotlin.test.Test
import kotlin.test.assertEquals

class TerminationGraceTest {
    private val pod =
        PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build()
    private val probe =
        ProbeBuilder()
            .withNewTcpSocket()
            .withNewPort(8080)
            .endTcpSocket()
            .build()

    @Test
    fun `without settings the API default of 30 s applies`() {
        assertEquals(30, TerminationGrace.forDeletion(pod).seconds)
        assertEquals(30, TerminationGrace.forProbeKill(pod, probe).seconds)
        assertEquals(30, TerminationGrace.forDeletion(null).seconds)
    }

    @Test
    fun `a deletion's grace period wins over the pod's`() {
        val deleted =
            PodBuilder(pod)
                .editMetadata()
                .withDeletionGracePeriodSeconds(0L)
                .endMetadata()
                .editSpec()
                .withTerminationGracePeriodSeconds(20L)
                .endSpec()
                .build()
        assertEquals(0, TerminationGrace.forDeletion(deleted).seconds)
    }

    @Test
    fun `a probe's grace period wins over the pod's after a failed probe`() {
        val withGrace =
            PodBuilder(pod)
                .editSpec()
                .withTerminationGracePeriodSeconds(20L)
                .endSpec()
                .build()
        assertEquals(20, TerminationGrace.forProbeKill(withGrace, probe).seconds)
        val probeGrace = ProbeBuilder(probe).withTerminationGracePeriodSeconds(2L).build()
        assertEquals(2, TerminationGrace.forProbeKill(withGrace, probeGrace).seconds)
    }
}
