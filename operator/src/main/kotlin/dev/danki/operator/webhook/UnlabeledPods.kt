package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder
import io.fabric8.kubernetes.api.model.ListOptionsBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import java.time.Duration

/**
 * A Deployment's pods that the pod cache does not hold. That cache selects pods labelled
 * [Keys.WARMUP_LABEL], which the webhook adds to every pod it gates, so that the operator's memory follows
 * danki's pods and not every pod in the cluster. The webhook does not see every pod, though: one admitted
 * while it was unreachable has neither gate nor label, and one gated by its own template before danki
 * labelled such pods has the gate alone. Those are read here, from the API server, for each Deployment
 * whose pods danki gates, and handed to [MissedGates].
 *
 * Read on each event of such a Deployment: its status moves as its ReplicaSet creates pods and as they turn
 * ready, so a pod the webhook missed is found within moments. The list is served from the API server's
 * watch cache (resourceVersion 0) and selects on the server: only the Deployment's unlabelled pods come back.
 */
class UnlabeledPods(
    private val client: KubernetesClient,
    private val missedGates: MissedGates,
    /** The Deployment's pods the pod cache holds (labelled ones). */
    private val cached: (namespace: String, deployment: String) -> List<Pod>,
) {
    /** Checks [deployment]'s unlabelled pods; returns when to look again (null: at its next event). */
    fun check(deployment: Deployment): Duration? {
        val namespace = deployment.metadata.namespace
        val name = deployment.metadata.name
        if (allSeen(deployment)) {
            missedGates.retain(namespace, name, emptySet())
            return null
        }
        val pods = list(deployment).filter { PodOwners.deploymentOf(it) == name }
        missedGates.retain(namespace, name, pods.map { it.metadata.uid }.toSet())
        return pods.mapNotNull { missedGates.check(it, deployment) }.minOrNull()
    }

    /**
     * Whether the cache holds as many of [deployment]'s pods as its status counts (`status.replicas`: the
     * pods of all its ReplicaSets, not terminating): then none is unlabelled, and no list is needed. Most
     * events are of such Deployments; a status behind its pods only puts the list off to the next event,
     * which the pods' own changes bring.
     */
    private fun allSeen(deployment: Deployment): Boolean {
        val replicas = deployment.status?.replicas ?: 0
        val seen = cached(deployment.metadata.namespace, deployment.metadata.name)
        return seen.count { it.metadata.deletionTimestamp == null } >= replicas
    }

    /** [deployment] is gone: nothing of its pods is kept. */
    fun forget(namespace: String, name: String) = missedGates.retain(namespace, name, emptySet())

    private fun list(deployment: Deployment): List<Pod> {
        val selector = deployment.spec?.selector ?: return emptyList()
        // the Deployment's own selector, and not danki's label; an empty one would select the whole namespace
        if (selector.matchLabels.isNullOrEmpty() && selector.matchExpressions.isNullOrEmpty()) return emptyList()
        val unlabeled =
            LabelSelectorBuilder(selector)
                .addNewMatchExpression()
                .withKey(Keys.WARMUP_LABEL)
                .withOperator("DoesNotExist")
                .endMatchExpression()
                .build()
        return client
            .pods()
            .inNamespace(deployment.metadata.namespace)
            .withLabelSelector(unlabeled)
            .list(ListOptionsBuilder().withResourceVersion(FROM_WATCH_CACHE).build())
            .items
    }

    private companion object {
        /** Any resourceVersion will do: the API server answers from its watch cache, not from etcd. */
        const val FROM_WATCH_CACHE = "0"
    }
}
