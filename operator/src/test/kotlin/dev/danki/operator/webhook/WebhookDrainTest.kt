package dev.danki.operator.webhook

import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

/** A going replica's webhook stays up until the Service stops routing to it, within a limit. */
class WebhookDrainTest {
    private var clock = Instant.parse("2026-11-28T12:00:00Z")
    private val slept = mutableListOf<Duration>()

    private fun drain(answers: List<Boolean?>): WebhookDrain {
        var asked = 0
        // the answers in turn, the last one from then on
        return WebhookDrain(
            routed = { answers[minOf(asked++, answers.size - 1)] },
            sleep = {
                slept += it
                clock += it
            },
            now = { clock },
        )
    }

    @Test
    fun `waits while the Service routes to the replica, then for the API server to catch up`() {
        drain(listOf(true, true, true, false)).await(Duration.ofSeconds(30)) shouldBe true
        slept shouldBe List(3) { WebhookDrain.POLL } + WebhookDrain.CATCH_UP
    }

    @Test
    fun `an answer the API cannot give counts as still routed`() {
        drain(listOf(null, null, false)).await(Duration.ofSeconds(30)) shouldBe true
        slept.count { it == WebhookDrain.POLL } shouldBe 2
    }

    @Test
    fun `gives up at the limit when the Service keeps routing`() {
        drain(listOf(true)).await(Duration.ofSeconds(5)) shouldBe false
        Duration.between(Instant.parse("2026-11-28T12:00:00Z"), clock) shouldBe Duration.ofSeconds(5)
        slept.none { it == WebhookDrain.CATCH_UP } shouldBe true
    }

    @Test
    fun `a replica the Service never routed to waits only the catch-up`() {
        drain(listOf(false)).await(Duration.ofSeconds(30)) shouldBe true
        slept shouldBe listOf(WebhookDrain.CATCH_UP)
    }
}
