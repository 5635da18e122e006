package dev.danki.operator.leader

import dev.danki.operator.boost.PodResize
import dev.danki.operator.gate.GateCondition
import dev.danki.operator.gate.PodGate
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.PodEviction
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.testkit.readyGatedPod
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.string.shouldContain
import io.mockk.confirmVerified
import io.mockk.mockk
import org.junit.jupiter.api.Test

/**
 * A replica that lost its Lease writes nothing of the leader's (issue 48, hole 3): every such write
 * path asks [Leadership] first, and once the election said the Lease is lost none reaches the API
 * server. The client is a strict mock: any call on it fails the test.
 */
class LeadershipFenceTest {
    private val client = mockk<KubernetesClient>()
    private val lost = Leadership(leading = true).apply { lost() }
    private val pod = readyGatedPod()

    private fun refused(write: () -> Unit) {
        val refusal = shouldThrow<NotLeading>(write)
        refusal.message shouldContain "no longer leads"
        confirmVerified(client)
    }

    @Test
    fun `the gate is not written`() = refused { PodGate(client, lost).write(pod, GateCondition(true, "WarmedUp", "m")) }

    @Test
    fun `no WarmupRun is created`() =
        refused {
            RunStore(client, lost).create(pod, "web-1", WarmupRunSpec(), WarmupRunStatus())
        }

    @Test
    fun `no WarmupRun status is written`() =
        refused {
            RunStore(client, lost).writeStatus("shop", "web-1", WarmupRunStatus())
        }

    @Test
    fun `no pod is evicted`() = refused { PodEviction(client, lost).evict(pod) }

    @Test
    fun `no pod is resized`() = refused { PodResize(client, lost).request(pod, "app", 200, null) }

    @Test
    fun `no template is patched`() {
        val deployment =
            DeploymentBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .endMetadata()
                .build()
        refused { TemplateGate(client, lost).apply(deployment, TemplateGate.Change.ADD) }
    }

    @Test
    fun `a replica writes again once it leads again`() {
        val leadership = Leadership()
        shouldThrow<NotLeading> { leadership.check("x") }
        leadership.acquired()
        leadership.check("x")
        leadership.lost()
        shouldThrow<NotLeading> { leadership.check("x") }
    }
}
