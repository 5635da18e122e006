package dev.danki.operator.e2e

import dev.danki.operator.gate.PodGate
import dev.danki.operator.it.GeneratedCrds
import dev.danki.operator.it.eventually
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.testkit.Manifests
import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import io.fabric8.kubernetes.api.model.ServiceBuilder
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.io.File
import java.time.Duration

/**
 * The local cluster (KUBECONFIG) as the E2E sees it: one fresh namespace with the WarmupRun CRD applied,
 * the sample service's Deployments and Services, and the Lease the operator processes elect on.
 */
class E2eCluster(
    val repo: File,
) {
    val client = KubernetesClientBuilder().build()
    val suffix: String = System.currentTimeMillis().toString(36)
    val ns = "danki-e2e-$suffix"

    fun applyCrds() {
        for (crd in GeneratedCrds.load(client, repo)) {
            client
                .resource<CustomResourceDefinition>(crd)
                .fieldManager("danki-e2e")
                .forceConflicts()
                .serverSideApply()
        }
    }

    fun setUp() {
        applyCrds()
        client.namespaces().resource(Manifests.namespace(ns)).create()
        eventually(Duration.ofSeconds(30)) {
            client
                .serviceAccounts()
                .inNamespace(ns)
                .withName("default")
                .get()!!
        }
    }

    fun tearDown() {
        client.namespaces().withName(ns).delete()
        client.close()
    }

    fun deployment(
        name: String,
        replicas: Int,
        annotations: Map<String, String>,
        image: String = SAMPLE_IMAGE,
        env: Map<String, String> = emptyMap(),
        /** The template carries danki's label and gate already, so opting in does not roll it. */
        gated: Boolean = false,
    ): Deployment =
        Manifests.deployment(
            ns,
            name,
            annotations,
            port = PORT,
            replicas = replicas,
            image = image,
            env = mapOf("PORT" to PORT.toString()) + env,
            templateLabels = if (gated) mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE) else emptyMap(),
            readinessGates = if (gated) listOf(Keys.GATE_CONDITION) else emptyList(),
            // as users deploy it: ContainersReady means the JVM listens (http-status answers 500 to probes too)
            probe = image == SAMPLE_IMAGE,
        )

    fun service(name: String) =
        client
            .resource(
                ServiceBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(ns)
                    .endMetadata()
                    .withNewSpec()
                    .addToSelector("app", name)
                    .addNewPort()
                    .withPort(PORT)
                    .withNewTargetPort(PORT)
                    .endPort()
                    .endSpec()
                    .build(),
            ).create()

    fun pods(app: String): List<Pod> =
        client
            .pods()
            .inNamespace(ns)
            .withLabel("app", app)
            .list()
            .items
            .filter { it.metadata.deletionTimestamp == null }

    /** Pods of the rollout danki gated; the pod from before opt-in has no gate and is not danki's. */
    fun gatedPods(app: String): List<Pod> = pods(app).filter { PodGate.hasGate(it) }

    fun gateOf(pod: Pod): PodCondition? = PodGate.conditionOf(pod)

    fun runs(): List<WarmupRun> =
        client
            .resources(WarmupRun::class.java)
            .inNamespace(ns)
            .list()
            .items

    /** Events about the object [name] in the test namespace (as ItNamespace.events). */
    fun events(name: String): List<Event> = allEvents().filter { it.involvedObject.name == name }

    /** Every Event in the test namespace. */
    fun allEvents(): List<Event> = Manifests.events(client, ns)

    /** The identity holding the operators' Lease, once someone does. */
    fun leaseHolder(): String =
        eventually(Duration.ofSeconds(60)) {
            client
                .leases()
                .inNamespace(ns)
                .withName(LEASE_NAME)
                .get()!!
                .spec.holderIdentity!!
                .also { require(it.isNotEmpty()) { "the Lease is free" } }
        }

    fun lease() =
        client
            .leases()
            .inNamespace(ns)
            .withName(LEASE_NAME)
            .get()

    companion object {
        const val PORT = 8080
        const val SAMPLE_IMAGE = Manifests.SAMPLE_IMAGE

        /** The Lease name [OperatorProcess] configures. */
        const val LEASE_NAME = "danki-e2e"
    }
}
