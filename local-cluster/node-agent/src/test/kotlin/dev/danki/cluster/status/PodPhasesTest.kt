package dev.danki.cluster.status

import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals

class PodPhasesTest {
    private val now = Instant.parse("2026-11-22T04:00:00Z")

    private fun container(
        state: RunState,
        restarts: Int = 0,
        willRestart: Boolean = false,
        last: RunState.Terminated? = null,
    ) = ContainerSnapshot("c", "img", state, last, restarts, willRestart = willRestart)

    @Test
    fun `container that never ran keeps the pod Pending`() {
        assertEquals("Pending", PodPhases.compute(listOf(container(RunState.Waiting("ErrImagePull")))))
    }

    @Test
    fun `running container makes the pod Running`() {
        assertEquals("Running", PodPhases.compute(listOf(container(RunState.Running(now)))))
    }

    @Test
    fun `container in crash-loop back-off keeps the pod Running`() {
        val last = RunState.Terminated(1, "Error", now, now)
        val backingOff = container(RunState.Waiting("CrashLoopBackOff"), 1, last = last)
        assertEquals("Running", PodPhases.compute(listOf(backingOff)))
    }

    @Test
    fun `all exited with 0 and no restart is Succeeded`() {
        assertEquals("Succeeded", PodPhases.compute(listOf(container(RunState.Terminated(0, "Completed", now, now)))))
    }

    @Test
    fun `one failed exit and no restart is Failed`() {
        val containers =
            listOf(
                container(RunState.Terminated(0, "Completed", now, now)),
                container(RunState.Terminated(2, "Error", now, now)),
            )
        assertEquals("Failed", PodPhases.compute(containers))
    }

    @Test
    fun `exited container that will restart keeps the pod Running`() {
        val restarting = container(RunState.Terminated(1, "Error", now, now), willRestart = true)
        assertEquals("Running", PodPhases.compute(listOf(restarting)))
    }
}
