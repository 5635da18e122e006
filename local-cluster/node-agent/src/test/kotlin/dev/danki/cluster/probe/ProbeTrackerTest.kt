package dev.danki.cluster.probe

import io.fabric8.kubernetes.api.model.ProbeBuilder
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class ProbeTrackerTest {
    @Test
    fun `readiness starts failing and passes after successThreshold successes in a row`() {
        val tracker = ProbeTracker(ProbeKind.READINESS, ProbeSettings(successThreshold = 2, failureThreshold = 3))
        assertFalse(tracker.succeeding)
        assertFalse(tracker.record(true))
        assertFalse(tracker.succeeding)
        assertTrue(tracker.record(true))
        assertTrue(tracker.succeeding)
    }

    @Test
    fun `a failure in between starts the success count over`() {
        val tracker = ProbeTracker(ProbeKind.READINESS, ProbeSettings(successThreshold = 2))
        tracker.record(true)
        tracker.record(false)
        tracker.record(true)
        assertFalse(tracker.succeeding)
    }

    @Test
    fun `readiness flips to failing only after failureThreshold failures in a row`() {
        val tracker = ProbeTracker(ProbeKind.READINESS, ProbeSettings(failureThreshold = 3))
        tracker.record(true)
        tracker.record(false)
        tracker.record(false)
        assertTrue(tracker.succeeding)
        assertTrue(tracker.record(false))
        assertFalse(tracker.succeeding)
        assertTrue(tracker.failed)
    }

    @Test
    fun `liveness starts succeeding and fails after the threshold`() {
        val tracker = ProbeTracker(ProbeKind.LIVENESS, ProbeSettings(failureThreshold = 2))
        assertTrue(tracker.succeeding)
        tracker.record(false)
        assertFalse(tracker.failed)
        tracker.record(false)
        assertTrue(tracker.failed)
    }

    @Test
    fun `startup remembers it succeeded`() {
        val tracker = ProbeTracker(ProbeKind.STARTUP, ProbeSettings())
        assertFalse(tracker.everSucceeded)
        tracker.record(true)
        assertTrue(tracker.everSucceeded)
    }

    @Test
    fun `settings take the API defaults for missing fields`() {
        val settings =
            ProbeSettings.of(
                ProbeBuilder()
                    .withNewHttpGet()
                    .withNewPort(8080)
                    .endHttpGet()
                    .build(),
            )
        assertEquals(ProbeSettings(0, 10, 1, 1, 3), settings)
        val custom =
            ProbeSettings.of(
                ProbeBuilder()
                    .withInitialDelaySeconds(2)
                    .withPeriodSeconds(1)
                    .withFailureThreshold(5)
                    .build(),
            )
        assertEquals(ProbeSettings(2, 1, 1, 1, 5), custom)
    }
}
