package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test

class BoostDecisionTest {
    private fun pod(limit: String?, request: String? = "100m", qos: String = "Burstable"): Pod =
        PodBuilder()
            .withNewSpec()
            .addNewContainer()
            .withName("sidecar")
            .addNewPort()
            .withContainerPort(9000)
            .endPort()
            .endContainer()
            .addNewContainer()
            .withName("app")
            .addNewPort()
            .withContainerPort(8080)
            .endPort()
            .withNewResources()
            .withLimits<String, Quantity>(limit?.let { mapOf("cpu" to Quantity(it)) } ?: emptyMap())
            .withRequests<String, Quantity>(request?.let { mapOf("cpu" to Quantity(it)) } ?: emptyMap())
            .endResources()
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withQosClass(qos)
            .endStatus()
            .build()

    @Test
    fun `the container serving the warm-up port gets the boost as its limit, its request untouched`() {
        BoostDecision.of(pod("200m"), 8080, BoostAmount.Fixed(1000)) shouldBe
            BoostDecision.Boost("app", 200, 1000, null)
    }

    @Test
    fun `a Guaranteed pod's request moves with its limit, so it stays Guaranteed`() {
        BoostDecision.of(pod("500m", "500m", "Guaranteed"), 8080, BoostAmount.Fixed(2000)) shouldBe
            BoostDecision.Boost("app", 500, 2000, 500)
    }

    @Test
    fun `a container without a CPU limit is skipped, as there is nothing to raise`() {
        val decision = BoostDecision.of(pod(null), 8080, BoostAmount.Fixed(1000))
        decision.shouldBeInstanceOf<BoostDecision.Skip>().why shouldContain "app has no CPU limit"
    }

    @Test
    fun `a limit already at or above the boost is kept`() {
        val decision = BoostDecision.of(pod("2"), 8080, BoostAmount.Fixed(1500))
        decision.shouldBeInstanceOf<BoostDecision.Skip>().why shouldContain
            "CPU limit 2 is at or above the boost, 1500m"
    }

    @Test
    fun `a port no container declares falls back to the first container`() {
        val decision = BoostDecision.of(pod("200m"), 7070, BoostAmount.Fixed(1000))
        decision.shouldBeInstanceOf<BoostDecision.Skip>().why shouldContain "sidecar has no CPU limit"
    }

    @Test
    fun `a pod an earlier leader boosted is judged by its own CPU as the record has it, not the boosted pod`() {
        val own = BoostDecision.OwnCpu("app", 200, null)
        BoostDecision.of(pod("1"), 8080, BoostAmount.Fixed(1000), own) shouldBe
            BoostDecision.Boost("app", 200, 1000, null)
        BoostDecision.of(pod("1"), 8080, BoostAmount.Fixed(150), own).shouldBeInstanceOf<BoostDecision.Skip>()
    }

    @Test
    fun `the default boost is the JVM's size for the container's own limit`() {
        // 200m: a JVM of 1 CPU, with 2 compiler threads
        BoostDecision.of(pod("200m"), 8080, BoostAmount.JvmSized, nodes = BIG_NODE) shouldBe
            BoostDecision.Boost("app", 200, 3000, null)
        // 2500m: 3 CPUs and 2 compiler threads
        BoostDecision.of(pod("2500m"), 8080, BoostAmount.JvmSized, nodes = BIG_NODE) shouldBe
            BoostDecision.Boost("app", 2500, 5000, null)
    }

    @Test
    fun `the default is capped by the nodes' CPU, and without a known node there is none`() {
        BoostDecision.of(pod("200m"), 8080, BoostAmount.JvmSized, nodes = nodesOf("1500m")) shouldBe
            BoostDecision.Boost("app", 200, 1500, null)
        val unknown = BoostDecision.of(pod("200m"), 8080, BoostAmount.JvmSized)
        unknown.shouldBeInstanceOf<BoostDecision.Skip>().why shouldContain "no allocatable CPU is known"
        // a boost asked for is the Deployment's to choose
        BoostDecision.of(pod("200m"), 8080, BoostAmount.Fixed(4000), nodes = nodesOf("1500m")) shouldBe
            BoostDecision.Boost("app", 200, 4000, null)
    }

    @Test
    fun `a Guaranteed pod gets no default boost, as its request would rise with it, but one it asks for`() {
        val guaranteed = pod("500m", "500m", "Guaranteed")
        val sized = BoostDecision.of(guaranteed, 8080, BoostAmount.JvmSized, nodes = BIG_NODE)
        sized.shouldBeInstanceOf<BoostDecision.Skip>().why shouldContain "a Guaranteed pod gets no default boost"
        BoostDecision.of(guaranteed, 8080, BoostAmount.Fixed(2000)) shouldBe BoostDecision.Boost("app", 500, 2000, 500)
    }

    private companion object {
        /** One node, of allocatable CPU [cpu]: the pod (no selector, no tolerations) may run on it. */
        fun nodesOf(cpu: String): () -> List<Node> =
            {
                listOf(
                    NodeBuilder()
                        .withNewMetadata()
                        .withName("n1")
                        .endMetadata()
                        .withNewStatus()
                        .addToAllocatable("cpu", Quantity(cpu))
                        .endStatus()
                        .build(),
                )
            }

        val BIG_NODE = nodesOf("64")
    }
}
