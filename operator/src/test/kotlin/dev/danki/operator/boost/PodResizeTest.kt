package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodConditionBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

/** What the kubelet's status says of a resize (the kubelet itself is in the operator's E2E). */
class PodResizeTest {
    private fun pod(actualLimit: String?, vararg conditions: Triple<String, String, String>): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("app")
            .withNewResources()
            .withLimits<String, Quantity>(actualLimit?.let { mapOf("cpu" to Quantity(it)) } ?: emptyMap())
            .endResources()
            .endContainerStatus()
            .withConditions(
                conditions.map { (type, reason, message) ->
                    PodConditionBuilder()
                        .withType(type)
                        .withStatus("True")
                        .withReason(reason)
                        .withMessage(message)
                        .build()
                },
            ).endStatus()
            .build()

    @Test
    fun `applied once the container's status shows the new limit and nothing is in progress`() {
        PodResize.outcomeOf(pod("1"), "app", 1000) shouldBe PodResize.Outcome.Applied
        PodResize.outcomeOf(pod("1000m"), "app", 1000) shouldBe PodResize.Outcome.Applied
    }

    @Test
    fun `under way while the status shows the old limit or the resize is in progress`() {
        PodResize.outcomeOf(pod("200m"), "app", 1000) shouldBe null
        PodResize.outcomeOf(pod("1", Triple("PodResizeInProgress", "", "")), "app", 1000) shouldBe null
    }

    @Test
    fun `a pending resize is not applied, with the kubelet's reason and message`() {
        val pending = pod("200m", Triple("PodResizePending", "Infeasible", "Node didn't have enough capacity"))
        PodResize.outcomeOf(pending, "app", 1000) shouldBe
            PodResize.Outcome.NotApplied("Infeasible", "Node didn't have enough capacity")
        val failed = pod("200m", Triple("PodResizeInProgress", "Error", "runtime said no"))
        PodResize.outcomeOf(failed, "app", 1000) shouldBe PodResize.Outcome.NotApplied("Error", "runtime said no")
    }

    @Test
    fun `a deleted pod is gone`() {
        PodResize.outcomeOf(null, "app", 1000) shouldBe PodResize.Outcome.Gone
    }
}
