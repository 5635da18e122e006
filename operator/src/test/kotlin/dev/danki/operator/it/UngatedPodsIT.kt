package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.config.WebhookSettings
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.testkit.counter
import dev.danki.operator.webhook.Certificates
import dev.danki.operator.webhook.MissedGates
import dev.danki.operator.webhook.OptInLookup
import dev.danki.operator.webhook.OptInReads
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.nio.file.Files
import java.time.Duration
import java.time.Instant

/**
 * Pods of opted-in Deployments that arrive without the gate, against a real kube-apiserver (no kubelet,
 * no controllers: the pods are created as a ReplicaSet would, and an evicted pod without a node is
 * deleted at once). The operator runs in webhook mode with mounted certificates; its webhook is not
 * registered with this API server, so every pod here is one it "missed". Also the webhook's read past
 * its cache, on the same API server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UngatedPodsIT {
    private val space = ItNamespace("danki-it-ungated")
    private val client = space.client
    private val metrics = WarmupMetrics()
    private lateinit var operator: Operator

    @BeforeAll
    fun start() {
        val dir = Files.createTempDirectory("danki-it-certs").toFile()
        val now = Instant.now()
        val ca = Certificates.newCa(now, Duration.ofDays(1))
        val serving = Certificates.newServing(ca, listOf("localhost"), now, Duration.ofDays(1))
        dir.resolve(Keys.WebhookSecret.TLS_CERT).writeText(Certificates.pem(serving.certificate))
        dir.resolve(Keys.WebhookSecret.TLS_KEY).writeText(Certificates.pem(serving.key))
        val webhook =
            WebhookSettings(
                port = 0,
                serviceName = "danki-it",
                namespace = space.ns,
                configurationName = "danki-it",
                secretName = null,
                certDir = dir.path,
            )
        webhookEndpoint(ready = true)
        operator = Operator(space.config().copy(webhook = webhook), client, metrics).apply { start() }
    }

    /**
     * The webhook Service's EndpointSlice as the EndpointSlice controller would write it; the address is
     * never dialled (no webhook configuration points at it).
     */
    private fun webhookEndpoint(ready: Boolean) {
        val slice =
            EndpointSliceBuilder()
                .withNewMetadata()
                .withName("danki-it-webhook")
                .withNamespace(space.ns)
                .addToLabels("kubernetes.io/service-name", "danki-it")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("198.18.250.1")
                .withNewConditions()
                .withReady(ready)
                .endConditions()
                .endEndpoint()
                .build()
        client.resource(slice).forceConflicts().serverSideApply()
    }

    @AfterAll
    fun stop() = operator.stop()

    /** How long WebhookEndpoints keeps what it read, and a little more. */
    private val endpointsFresh = Duration.ofMillis(2_200)

    /** A pod as the ReplicaSet creates it when the webhook did not answer: neither gate nor label. */
    private fun ungatedPod(deployment: String, name: String): Pod =
        createdByReplicaSet(deployment, Fixtures.unlabeledPod(space.ns, deployment, name, 8080))

    /**
     * Creates [pod], then moves its Deployment's status as the Deployment controller does when the
     * ReplicaSet's count changes (no controller runs here): the event danki looks at the Deployment's pods on.
     */
    private fun createdByReplicaSet(deployment: String, pod: Pod): Pod {
        val created = client.resource(pod).create()
        // read and written at one resourceVersion: the operator may change the Deployment in between (409)
        eventually(Duration.ofSeconds(CONFLICT_SECONDS)) {
            client
                .apps()
                .deployments()
                .inNamespace(space.ns)
                .withName(deployment)
                .editStatus { d ->
                    d.apply {
                        status = (status ?: DeploymentStatus()).apply { replicas = (replicas ?: 0) + 1 }
                    }
                }
        }
        return created
    }

    private fun reasons(deployment: String) = space.events(deployment).map { it.reason }

    @Test
    fun `a pod created in the second its Deployment opted in is reported and replaced`() {
        space.create(Fixtures.deployment(space.ns, "fresh", mapOf(Annotations.WARMUP to "enabled")))
        ungatedPod("fresh", "fresh-1")

        eventually(Duration.ofSeconds(20)) {
            space.pod("fresh-1") shouldBe null
            reasons("fresh") shouldContain Keys.EventReasons.POD_NOT_GATED
            reasons("fresh") shouldContain Keys.EventReasons.UNGATED_POD_REPLACED
        }
        metrics.counter("danki_webhook_ungated_pods_total", "deployment", "fresh") shouldBe 1.0
        metrics.counter("danki_webhook_ungated_pods_replaced_total", "deployment", "fresh") shouldBe 1.0
    }

    @Test
    fun `only labelled pods are cached, and a gated pod without the label is replaced`() {
        space.create(Fixtures.deployment(space.ns, "unseen-gate", mapOf(Annotations.WARMUP to "enabled")))
        // its template's gate, admitted while the webhook was away: gated, but not labelled
        createdByReplicaSet(
            "unseen-gate",
            Fixtures.unlabeledPod(space.ns, "unseen-gate", "unseen-gate-1", 8080, gated = true),
        )
        eventually(Duration.ofSeconds(20)) {
            space.pod("unseen-gate-1") shouldBe null
            reasons("unseen-gate") shouldContain Keys.EventReasons.POD_NOT_LABELED
            reasons("unseen-gate") shouldContain Keys.EventReasons.UNGATED_POD_REPLACED
        }
        // a labelled pod is in the operator's cache, an unlabelled one never is
        createdByReplicaSet("unseen-gate", Fixtures.gatedPod(space.ns, "unseen-gate", "unseen-gate-2", 8080))
        space.create(Fixtures.deployment(space.ns, "kept-out", emptyMap()))
        ungatedPod("kept-out", "kept-out-1")
        eventually(Duration.ofSeconds(10)) {
            operator.caches.pods
                .find(space.ns, "unseen-gate-2")
                .shouldNotBeNull()
        }
        operator.caches.pods.find(space.ns, "kept-out-1") shouldBe null
        metrics.counter("danki_webhook_ungated_pods_replaced_total", "deployment", "unseen-gate") shouldBe 0.0
    }

    @Test
    fun `with report the pod is named and kept`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.UNGATED_PODS to "report")
        space.create(Fixtures.deployment(space.ns, "kept", annotations))
        ungatedPod("kept", "kept-1")

        eventually(Duration.ofSeconds(20)) { reasons("kept") shouldContain Keys.EventReasons.POD_NOT_GATED }
        continually(Duration.ofSeconds(2)) { space.pod("kept-1").shouldNotBeNull() }
        reasons("kept").contains(Keys.EventReasons.UNGATED_POD_REPLACED) shouldBe false
    }

    @Test
    fun `a PodDisruptionBudget holds the eviction until it allows one`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.UNGATED_PODS to "report")
        space.create(Fixtures.deployment(space.ns, "guarded", annotations))
        // no controller computes this budget's status here, so it allows no disruption at all
        val budget =
            PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("guarded")
                .withNamespace(space.ns)
                .endMetadata()
                .withNewSpec()
                .withNewMinAvailable(1)
                .withNewSelector()
                .addToMatchLabels("app", "guarded")
                .endSelector()
                .endSpec()
                .build()
        client.resource(budget).create()
        // a Pending pod may be evicted whatever the budget says: make it Running first, under `report`
        val pod = ungatedPod("guarded", "guarded-1")
        Fixtures.markReady(client, pod, "127.0.0.1")
        eventually(Duration.ofSeconds(20)) { reasons("guarded") shouldContain Keys.EventReasons.POD_NOT_GATED }
        // another manager, so the opt-in annotation's managedFields time stays the pod's second
        client
            .apps()
            .deployments()
            .inNamespace(space.ns)
            .withName("guarded")
            .patch(
                PatchContext
                    .Builder()
                    .withPatchType(PatchType.JSON_MERGE)
                    .withFieldManager("it-switch")
                    .build(),
                """{"metadata":{"annotations":{"${Annotations.UNGATED_PODS}":"replace"}}}""",
            )
        continually(Duration.ofSeconds(3)) { space.pod("guarded-1").shouldNotBeNull() }
        client.resource(budget).delete()
        // tried again after MissedGates.EVICTION_RETRY
        eventually(Duration.ofSeconds(30)) { space.pod("guarded-1") shouldBe null }
        reasons("guarded") shouldContain Keys.EventReasons.UNGATED_POD_REPLACED
    }

    @Test
    fun `no pod is replaced while the webhook has no ready endpoint, since its replacement would be ungated too`() {
        space.create(Fixtures.deployment(space.ns, "early", mapOf(Annotations.WARMUP to "enabled")))
        webhookEndpoint(ready = false)
        // the operator reads the endpoints at most every 2 s: let an earlier test's "ready" go stale
        Thread.sleep(endpointsFresh.toMillis())
        try {
            ungatedPod("early", "early-1")
            eventually(Duration.ofSeconds(20)) { reasons("early") shouldContain Keys.EventReasons.POD_NOT_GATED }
            continually(Duration.ofSeconds(3)) { space.pod("early-1").shouldNotBeNull() }
        } finally {
            webhookEndpoint(ready = true)
        }
        // looked at again after MissedGates.EVICTION_RETRY
        eventually(Duration.ofSeconds(30)) { space.pod("early-1") shouldBe null }
    }

    @Test
    fun `replacements that keep coming back ungated are no longer evicted`() {
        space.create(Fixtures.deployment(space.ns, "churn", mapOf(Annotations.WARMUP to "enabled")))
        // the first is replaced; then each pod after it comes ungated too, as if the webhook never answered
        for (i in 0 until MissedGates.MAX_CAME_BACK) {
            ungatedPod("churn", "churn-$i")
            eventually(Duration.ofSeconds(20)) { space.pod("churn-$i") shouldBe null }
        }
        ungatedPod("churn", "churn-last")
        eventually(Duration.ofSeconds(20)) {
            space.events("churn").map { it.message }.any { it.contains("stops replacing") } shouldBe true
        }
        space.pod("churn-last").shouldNotBeNull()
        metrics.counter("danki_webhook_ungated_pods_replaced_total", "deployment", "churn") shouldBe
            MissedGates.MAX_CAME_BACK.toDouble()
    }

    @Test
    fun `a pod from before the opt-in is left alone`() {
        space.create(Fixtures.deployment(space.ns, "older", emptyMap()))
        ungatedPod("older", "older-1")
        // into the next whole second, so that the opt-in is strictly later than the pod
        Thread.sleep(1_000 - Instant.now().toEpochMilli() % 1_000 + 100)
        space.editDeployment("older") { d ->
            d.metadata.annotations = d.metadata.annotations.orEmpty() + (Annotations.WARMUP to "enabled")
        }
        // a pod after the opt-in is replaced: the operator has seen the opt-in and looked at the
        // Deployment's pods (a Deployment's change reconciles each of them)
        ungatedPod("older", "older-2")
        eventually(Duration.ofSeconds(20)) { space.pod("older-2") shouldBe null }
        continually(Duration.ofSeconds(2)) { space.pod("older-1").shouldNotBeNull() }
        space.events("older").count { it.message.contains("older-1") } shouldBe 0
    }

    @Test
    fun `the webhook reads a Deployment its cache has not seen from the API server`() {
        space.create(Fixtures.deployment(space.ns, "unseen", mapOf(Annotations.WARMUP to "enabled")))
        val nothingCached =
            object : OptInLookup.Reads {
                override fun deployment(namespace: String, name: String) = null

                override fun namespaceLabels(namespace: String) = emptyMap<String, String>()
            }
        val lookup = OptInLookup(nothingCached, OptInReads.api(client), WarmupMetrics(), namespaceOptIn = true)
        try {
            val found = lookup.find(space.ns, "unseen")
            found.how shouldBe WarmupMetrics.LOOKUP_API
            found.deployment?.metadata?.name shouldBe "unseen"
        } finally {
            lookup.close()
        }
    }

    @Test
    fun `an API server that does not answer lets the pod through within the budget`() {
        // a port that refuses: nothing listens on port 1 of loopback
        val unreachable =
            KubernetesClientBuilder()
                .withConfig(
                    io.fabric8.kubernetes.client
                        .ConfigBuilder()
                        .withMasterUrl("https://127.0.0.1:1")
                        .withRequestRetryBackoffLimit(0)
                        .build(),
                ).build()
        val lookup =
            OptInLookup(
                OptInReads.cache(operator.caches),
                OptInReads.api(unreachable),
                WarmupMetrics(),
                namespaceOptIn = true,
                budget = Duration.ofMillis(500),
            )
        try {
            val started = System.nanoTime()
            val found = lookup.find(space.ns, "nowhere")
            found.how shouldBe WarmupMetrics.LOOKUP_FAILED
            (Duration.ofNanos(System.nanoTime() - started) < Duration.ofSeconds(3)) shouldBe true
        } finally {
            lookup.close()
            unreachable.close()
        }
    }

    private companion object {
        const val CONFLICT_SECONDS = 10L
    }
}
