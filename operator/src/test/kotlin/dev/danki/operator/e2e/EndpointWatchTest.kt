package dev.danki.operator.e2e

import dev.danki.operator.it.eventually
import io.fabric8.kubernetes.client.ConfigBuilder
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.nulls.shouldNotBeNull
import org.junit.jupiter.api.Test
import java.time.Duration

/** The watch's own failure is a test failure: a poll that throws must not leave "no violations" behind. */
class EndpointWatchTest {
    @Test
    fun `a watch whose poll throws fails violations and close`() {
        // nothing listens on port 1: every poll throws at once
        val config =
            ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:1")
                .withRequestRetryBackoffLimit(0)
                .build()
        KubernetesClientBuilder().withConfig(config).build().use { client ->
            val watch = EndpointWatch(client, "default", "nothing")
            eventually(Duration.ofSeconds(WAIT_SECONDS)) { watch.failure.shouldNotBeNull() }
            shouldThrow<AssertionError> { watch.violations }
            shouldThrow<AssertionError> { watch.close() }
        }
    }

    private companion object {
        const val WAIT_SECONDS = 30L
    }
}
