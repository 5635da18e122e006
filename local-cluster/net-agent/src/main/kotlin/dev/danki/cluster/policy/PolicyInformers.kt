package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import io.fabric8.kubernetes.client.informers.SharedIndexInformer

/**
 * The informer caches NetworkPolicies are computed from: policies and namespaces of the whole
 * cluster, watched here, and the pods of the agent's own pod informer (every pod of the cluster).
 */
class PolicyInformers(
    private val client: KubernetesClient,
) : PolicySources {
    @Volatile private var policyInformer: SharedIndexInformer<NetworkPolicy>? = null

    @Volatile private var namespaceInformer: SharedIndexInformer<Namespace>? = null

    @Volatile private var podInformer: SharedIndexInformer<Pod>? = null

    /** Starts watching policies and namespaces; returns once both caches are filled. */
    fun start(handler: ResourceEventHandler<Any>) {
        policyInformer =
            client
                .network()
                .v1()
                .networkPolicies()
                .inAnyNamespace()
                .inform(handler, NO_RESYNC)
        namespaceInformer = client.namespaces().inform(handler, NO_RESYNC)
    }

    /** Reads pods from the agent's pod informer from now on. */
    fun usePods(informer: SharedIndexInformer<Pod>) {
        podInformer = informer
    }

    fun stop() {
        policyInformer?.stop()
        namespaceInformer?.stop()
    }

    override fun policies(): List<NetworkPolicy> = policyInformer?.store?.list().orEmpty()

    override fun pods(): List<Pod> = podInformer?.store?.list().orEmpty()

    override fun namespaces(): List<Namespace> = namespaceInformer?.store?.list().orEmpty()

    private companion object {
        /** Every change arrives as an event; a periodic replay would only recompute the same rules. */
        const val NO_RESYNC = 0L
    }
}
