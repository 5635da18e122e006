package dev.danki.cli

import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.ResourceQuota
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler
import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Every read the CLI makes, each wrapped so that a failure becomes a [CliFailure] naming the
 * request and the next step ([KubeFailures]).
 */
class ClusterReader(
    val client: KubernetesClient,
) {
    fun deployment(ref: DeploymentRef): Deployment =
        call("get deployment ${ref.name} in namespace ${ref.namespace}") {
            client
                .apps()
                .deployments()
                .inNamespace(ref.namespace)
                .withName(ref.name)
                .get()
        } ?: throw CliFailure(
            ExitCode.NOT_FOUND,
            "$ref does not exist",
            "list the Deployments there: kubectl get deployments -n ${ref.namespace} (or pass -n <namespace>)",
        )

    /** Fails with [ExitCode.NO_CRD] when the WarmupRun API is not installed. */
    fun runs(ref: DeploymentRef): List<WarmupRun> =
        call("list WarmupRuns in namespace ${ref.namespace}") {
            client
                .resources(WarmupRun::class.java)
                .inNamespace(ref.namespace)
                .list()
                .items
        }.filter { it.spec?.deployment == ref.name }

    /**
     * The Deployment's WarmupHistory (named after it). None, or none readable, is an answer and not a
     * failure: the history is shown below the current pods and must not cost the user that table.
     */
    fun history(ref: DeploymentRef): HistoryLookup {
        val history =
            try {
                call("get WarmupHistory ${ref.name} in namespace ${ref.namespace}") {
                    client
                        .resources(WarmupHistory::class.java)
                        .inNamespace(ref.namespace)
                        .withName(ref.name)
                        .get()
                }
            } catch (e: CliFailure) {
                if (!KubeFailures.isForbidden(e)) throw e
                return HistoryLookup.Denied
            }
        return when {
            history == null -> HistoryLookup.Absent(servesHistories())
            history.status?.entries.isNullOrEmpty() -> HistoryLookup.Absent(served = true)
            else -> HistoryLookup.Found(history)
        }
    }

    /**
     * Whether the API serves WarmupHistories: a get answers 404 (null) both for a missing object and a
     * missing CRD, and discovery, unlike the CRD list, is open to every signed-in user. Null if it failed.
     */
    private fun servesHistories(): Boolean? = runCatching { client.supports(WarmupHistory::class.java) }.getOrNull()

    /** The Deployment's pods: those its selector matches that a ReplicaSet owns. */
    fun pods(deployment: Deployment): List<Pod> {
        val ns = deployment.metadata.namespace
        val labels =
            deployment.spec.selector
                ?.matchLabels
                .orEmpty()
        return call("list pods in namespace $ns") {
            client
                .pods()
                .inNamespace(ns)
                .withLabels(labels)
                .list()
                .items
        }.filter { pod ->
            pod.metadata.ownerReferences
                .orEmpty()
                .any { it.kind == "ReplicaSet" }
        }
    }

    /** The HorizontalPodAutoscaler that sets this Deployment's replica count, if one does. */
    fun autoscaler(ref: DeploymentRef): HorizontalPodAutoscaler? =
        call("list HorizontalPodAutoscalers in namespace ${ref.namespace}") {
            client
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(ref.namespace)
                .list()
                .items
        }.firstOrNull { it.spec?.scaleTargetRef?.kind == "Deployment" && it.spec?.scaleTargetRef?.name == ref.name }

    /**
     * The labels of [namespace], for danki's namespace-wide opt-in. Many users may not read
     * Namespaces; then (or on any failure) the labels count as absent and only the Deployment's own
     * annotation decides, which can only make the opt-in check stricter.
     */
    fun namespaceLabels(namespace: String): Map<String, String> =
        runCatching {
            client
                .namespaces()
                .withName(namespace)
                .get()
                ?.metadata
                ?.labels
        }.getOrNull().orEmpty()

    fun quotas(namespace: String): List<ResourceQuota> =
        call("list ResourceQuotas in namespace $namespace") {
            client
                .resourceQuotas()
                .inNamespace(namespace)
                .list()
                .items
        }

    /** Warning Events in [namespace], newest last: why a ReplicaSet could not create a pod, or a pod not schedule. */
    fun warnings(namespace: String): List<Event> =
        call("list Events in namespace $namespace") {
            client
                .v1()
                .events()
                .inNamespace(namespace)
                .withField("type", "Warning")
                .list()
                .items
        }.sortedBy { it.lastTimestamp ?: it.eventTime?.time ?: "" }

    /** Runs [request], turning any failure into a [CliFailure] that names [what]. */
    fun <T> call(what: String, request: () -> T): T =
        try {
            request()
        } catch (e: CliFailure) {
            throw e
        } catch (
            @Suppress("TooGenericExceptionCaught") e: RuntimeException,
        ) {
            // the one boundary where any client failure is sorted into a message with a next step
            throw KubeFailures.classify(e, what)
        }
}
