package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.testkit.Manifests
import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodCondition
import io.fabric8.kubernetes.api.model.apps.Deployment
import java.io.File

/** One IT's namespace on the shared test API server, with the reads and writes its tests repeat. */
class ItNamespace(
    val ns: String,
) {
    val client = TestApiServer.client

    init {
        Fixtures.namespace(client, ns)
    }

    /** The configuration of an operator in this process watching only this namespace, acting at once. */
    fun config(): OperatorConfig =
        OperatorConfig(
            watchNamespaces = listOf(ns),
            httpPort = 0,
            leaderElection = false,
            identity = "it-$ns",
            k6Binary = File(TestApiServer.repo, "bin/k6").path,
            k6Script = File(TestApiServer.repo, "k6-scripts/warmup.js").path,
        )

    /** An operator with [config] (unless the config elects, acting at once), started. */
    fun operator(tune: OperatorConfig.() -> OperatorConfig = { this }): Operator =
        Operator(config().tune(), client).apply { start() }

    fun deployment(name: String): Deployment? =
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName(name)
            .get()

    fun editDeployment(name: String, edit: (Deployment) -> Unit): Deployment =
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName(name)
            .edit { it.apply(edit) }

    fun pod(name: String): Pod? =
        client
            .pods()
            .inNamespace(ns)
            .withName(name)
            .get()

    fun gate(name: String): PodCondition? = pod(name)?.let { PodGate.conditionOf(it) }

    fun run(name: String): WarmupRun? =
        client
            .resources(WarmupRun::class.java)
            .inNamespace(ns)
            .withName(name)
            .get()

    fun events(name: String): List<Event> = Manifests.events(client, ns).filter { it.involvedObject.name == name }

    fun create(deployment: Deployment): Deployment = client.resource(deployment).create()

    /** A gated pod of [deployment] that a kubelet has marked ready at 127.0.0.1. */
    fun createReadyPod(deployment: String, name: String, port: Int): Pod {
        val pod = client.resource(Fixtures.gatedPod(ns, deployment, name, port)).create()
        Fixtures.markReady(client, pod, "127.0.0.1")
        return pod
    }
}
