package dev.danki.operator.it

import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * Every mode the chart can turn on starts: the parts built before JOSDK creates its informers must
 * not read them (a runner-mode operator once crashed at start-up doing so; e2e-chart's upgrade found it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartupIT {
    private val space = ItNamespace("danki-it-startup")

    @Test
    fun `an operator with custom flows in runner pods starts, syncs and reports no problem`() {
        val operator = space.operator { copy(runnerImage = "registry.local/danki-runner:dev") }
        try {
            operator.caches.hasSynced() shouldBe true
            operator.problem().shouldBeNull()
        } finally {
            operator.stop()
        }
    }
}
