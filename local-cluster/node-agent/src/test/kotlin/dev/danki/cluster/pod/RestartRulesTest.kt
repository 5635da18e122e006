package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder
import java.time.Duration
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class RestartRulesTest {
    @Test
    fun `restart policies`() {
        assertTrue(RestartRules.restarts(null, 0))
        assertTrue(RestartRules.restarts("Always", 0))
        assertFalse(RestartRules.restarts("OnFailure", 0))
        assertTrue(RestartRules.restarts("OnFailure", 137))
        assertFalse(RestartRules.restarts("Never", 1))
    }

    @Test
    fun `back-off is immediate once, then doubles from 10 s up to 5 min`() {
        assertEquals(listOf(0L, 10, 20, 40, 80, 160, 300, 300), (1..8).map { RestartRules.backoff(it).seconds })
    }

    @Test
    fun `a long run starts the crash count over`() {
        assertEquals(4, RestartRules.crashesAfter(3, Duration.ofSeconds(5)))
        assertEquals(1, RestartRules.crashesAfter(3, Duration.ofMinutes(11)))
    }

    @Test
    fun `a container an earlier agent ran counts one restart more when started again`() {
        assertEquals(0, RestartRules.firstStartCount(null))
        val waiting =
            ContainerStatusBuilder()
                .withName("app")
                .withRestartCount(0)
                .withNewState()
                .withNewWaiting()
                .endWaiting()
                .endState()
        assertEquals(0, RestartRules.firstStartCount(waiting.build()))
        val running =
            ContainerStatusBuilder()
                .withName("app")
                .withRestartCount(2)
                .withNewState()
                .withNewRunning()
                .endRunning()
                .endState()
        assertEquals(3, RestartRules.firstStartCount(running.build()))
    }
}
