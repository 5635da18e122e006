package dev.danki.cli

import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.PodSpecBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class VerdictTest {
    private val fast = PodResult("web-a", "Succeeded", warmP95 = 90.0)

    @Test
    fun `go only when every pod warmed under the ceiling`() {
        Verdict.problems(listOf(fast), 150.0).shouldBeEmpty()
        Verdict.problems(listOf(fast.copy(warmP95 = 151.0)), 150.0) shouldBe
            listOf("web-a: warm P95 151.0 ms is over --max-warm-p95 150.0 ms")
        Verdict.problems(listOf(fast.copy(phase = "Failed", reason = "Timeout: k6 ran out")), null) shouldBe
            listOf("web-a: Failed: Timeout: k6 ran out")
        Verdict.problems(listOf(fast.copy(phase = "Running")), null) shouldBe listOf("web-a: Running")
    }

    @Test
    fun `progress counts each state`() {
        PodState.line(12, listOf(PodState.PENDING, PodState.WARMED, PodState.WARMED), 4) shouldBe
            "   12s  3 new pods (1 not created yet): 1 pending, 0 queued, 0 warming, 2 warmed, 0 failed"
    }

    @Test
    fun `a quota without room for the new pods is named with its figures`() {
        val template =
            PodSpecBuilder()
                .withContainers(
                    ContainerBuilder()
                        .withName("a")
                        .withNewResources()
                        .addToRequests("cpu", Quantity("250m"))
                        .endResources()
                        .build(),
                ).build()
        val quota =
            ResourceQuotaBuilder()
                .withMetadata(ObjectMetaBuilder().withName("q").build())
                .withNewSpec()
                .addToHard("requests.cpu", Quantity("2"))
                .addToHard("pods", Quantity("10"))
                .endSpec()
                .withNewStatus()
                .addToUsed("requests.cpu", Quantity("1500m"))
                .addToUsed("pods", Quantity("6"))
                .endStatus()
                .build()

        QuotaCheck.problems(listOf(quota), template, 2).shouldBeEmpty()
        QuotaCheck.problems(listOf(quota), template, 3) shouldBe
            listOf("ResourceQuota q: requests.cpu 1.5 used + 3 x 0.25 > 2 hard")
    }
}
