package dev.danki.operator.warmup

import dev.danki.operator.testkit.SettableClock
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.client.KubernetesClientException
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Clock
import java.time.Duration
import java.time.Instant

class NodeCpuCapsTest {
    @Test
    fun `one warm-up per two whole cores, at least one`() {
        mapOf("1" to 1, "1500m" to 1, "2" to 1, "3900m" to 1, "4" to 2, "7" to 3, "16" to 8, "100m" to 1)
            .forEach { (cpu, cap) -> NodeCpuCaps.capFor(Quantity(cpu)) shouldBe cap }
    }

    private val clock = SettableClock(Instant.parse("2026-11-24T08:00:00Z"))

    @Test
    fun `a node is read once per ttl`() {
        var reads = 0
        val caps =
            NodeCpuCaps({
                reads++
                Quantity("8")
            }, Duration.ofMinutes(10), clock)
        repeat(3) { caps.of("node-a") shouldBe 4 }
        reads shouldBe 1
        clock.now = clock.now.plus(Duration.ofMinutes(11))
        caps.of("node-a") shouldBe 4
        reads shouldBe 2
    }

    @Test
    fun `a node that cannot be read, or has no allocatable CPU, gets the fallback cap`() {
        NodeCpuCaps({ throw KubernetesClientException("nodes \"n\" is forbidden", 403, null) }).of("n") shouldBe
            NodeCpuCaps.FALLBACK
        NodeCpuCaps({ null }).of("n") shouldBe NodeCpuCaps.FALLBACK
    }

    @Test
    fun `a read that failed is tried again after the retry, not the ttl`() {
        var fail = true
        val caps =
            NodeCpuCaps({
                if (fail) {
                    throw KubernetesClientException(
                        "the server is currently unable to handle the request",
                        503,
                        null,
                    )
                }
                Quantity("8")
            }, Duration.ofMinutes(10), clock)
        caps.of("node-a") shouldBe NodeCpuCaps.FALLBACK
        fail = false
        caps.of("node-a") shouldBe NodeCpuCaps.FALLBACK // within the retry: no read hammering a failing server
        clock.now = clock.now.plus(NodeCpuCaps.RETRY_AFTER_FAILURE).plusSeconds(1)
        caps.of("node-a") shouldBe 4
    }
}
