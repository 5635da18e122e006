package dev.danki.operator.runner

import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.ScriptRef
import dev.danki.operator.warmup.TargetPod
import dev.danki.operator.warmup.WarmupPlan
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldStartWith
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

/** What a tenant's flow can reach and read is decided by these two objects alone. */
class RunnerPodSpecTest {
    private val script = ScriptRef("exam-flow", "login.js", secret = "exam-login")
    private val request =
        K6Request(
            runName = "shop.exam-abc-x1",
            baseUrl = "http://198.18.0.12:8080",
            plan = WarmupPlan(port = 8080, script = script),
            deadline = Instant.now().plusSeconds(300),
            maxErrorRatio = 0.05,
            target = TargetPod("shop", "exam-abc-x1", "uid-1", "198.18.0.12"),
        )
    private val pod =
        RunnerPodSpec.pod(
            request,
            script,
            "danki/k6-runner:dev",
            RunnerPodSpec.DEFAULT_RESOURCES,
            Duration.ofSeconds(280),
            mapOf("A" to "1"),
        )

    @Test
    fun `the runner runs under no identity, as non-root, read-only, with no capabilities, until the deadline`() {
        val spec = pod.spec
        spec.automountServiceAccountToken shouldBe false
        spec.enableServiceLinks shouldBe false
        spec.restartPolicy shouldBe "Never"
        spec.activeDeadlineSeconds shouldBe 280L
        spec.securityContext.runAsNonRoot shouldBe true
        spec.securityContext.seccompProfile.type shouldBe "RuntimeDefault"
        val container = spec.containers.single()
        container.securityContext.readOnlyRootFilesystem shouldBe true
        container.securityContext.allowPrivilegeEscalation shouldBe false
        container.securityContext.capabilities.drop shouldBe listOf("ALL")
        container.terminationMessagePath shouldBe "/dev/termination-log"
    }

    @Test
    fun `it sees the tenant's ConfigMap and Secret of its own namespace, and nothing else`() {
        pod.metadata.namespace shouldBe "shop"
        val volumes = pod.spec.volumes.associateBy { it.name }
        volumes.keys shouldContainExactlyInAnyOrder listOf("flow", "secret", "tmp")
        volumes.getValue("flow").configMap.name shouldBe "exam-flow"
        volumes.getValue("secret").secret.secretName shouldBe "exam-login"
        pod.spec.containers
            .single()
            .volumeMounts
            .map { it.mountPath to it.readOnly } shouldContainExactlyInAnyOrder
            listOf(RunnerPodSpec.FLOW_DIR to true, RunnerPodSpec.SECRET_DIR to true, "/tmp" to null)
    }

    @Test
    fun `it belongs to the warmed pod, so it goes with it`() {
        val owner = pod.metadata.ownerReferences.single()
        (owner.kind to owner.uid) shouldBe ("Pod" to "uid-1")
        pod.metadata.name shouldStartWith "danki-runner-"
        pod.metadata.name shouldBe RunnerPodSpec.nameOf("shop.exam-abc-x1")
    }

    @Test
    fun `its policy admits nothing in, and lets it out to the warmed pod's address only`() {
        val policy = RunnerPodSpec.networkPolicy(request)
        policy.metadata.name shouldBe pod.metadata.name
        policy.spec.podSelector.matchLabels shouldBe mapOf(Keys.RunnerLabels.RUNNER to pod.metadata.name)
        pod.metadata.labels[Keys.RunnerLabels.RUNNER] shouldBe pod.metadata.name
        policy.spec.policyTypes shouldContainExactlyInAnyOrder listOf("Ingress", "Egress")
        policy.spec.ingress shouldBe emptyList()
        val to =
            policy.spec.egress
                .single()
                .to
                .single()
        to.ipBlock.cidr shouldBe "198.18.0.12/32"
        to.podSelector shouldBe null
        to.namespaceSelector shouldBe null
    }
}
