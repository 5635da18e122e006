package dev.danki.operator.warmup

import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodIP
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

class WarmupTargetTest {
    private fun pod(
        ip: String,
        hostIP: String = "10.0.0.5",
        hostNetwork: Boolean = false,
        listed: List<String> = listOf(ip),
    ) = PodBuilder()
        .withNewSpec()
        .withHostNetwork(hostNetwork)
        .endSpec()
        .withNewStatus()
        .withPodIP(ip)
        .withHostIP(hostIP)
        .withPodIPs(listed.map { PodIP(it) })
        .endStatus()
        .build()

    @Test
    fun `a pod's own address is a target`() {
        WarmupTarget.refusal(pod("198.18.0.12"), allowHostNetwork = false) shouldBe null
    }

    @Test
    fun `a hostNetwork pod is refused unless allowed, naming the chart value`() {
        val refusal = WarmupTarget.refusal(pod("10.0.0.5", hostNetwork = true), allowHostNetwork = false)
        refusal.shouldNotBeNull() shouldContain "allowHostNetwork=true"
        WarmupTarget.refusal(pod("10.0.0.5", hostNetwork = true), allowHostNetwork = true) shouldBe null
    }

    @Test
    fun `a pod IP equal to the node's is refused even without the hostNetwork flag`() {
        WarmupTarget.refusal(pod("10.0.0.5"), allowHostNetwork = false).shouldNotBeNull()
    }

    @Test
    fun `a pod IP missing from the pod's own address list is refused`() {
        WarmupTarget
            .refusal(pod("198.18.0.12", listed = listOf("198.18.0.13")), allowHostNetwork = true)
            .shouldNotBeNull() shouldContain "not among"
    }
}
