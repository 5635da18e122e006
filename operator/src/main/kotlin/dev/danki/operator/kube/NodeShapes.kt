package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.NodeBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.informers.SharedIndexInformer

/**
 * The cluster's nodes as the default CPU boost reads them (boost.BoostCeiling): name, labels, taints,
 * whether cordoned, allocatable CPU. An informer, as a boost is decided in the webhook's few
 * milliseconds; each node is kept as only those fields, since a node's status (its images above all)
 * is most of what the API server sends.
 */
class NodeShapes(
    client: KubernetesClient,
) : AutoCloseable {
    private val informer: SharedIndexInformer<Node> =
        client
            .nodes()
            .runnableInformer(0)
            .itemStore(PrunedStore(::shape))
            .also { it.start() }

    /** The nodes known so far; empty until the first list has come. */
    fun all(): List<Node> = informer.store.list()

    override fun close() = informer.close()

    companion object {
        private const val CPU = "cpu"

        /** [node] with only what a boost's ceiling reads. */
        fun shape(node: Node): Node =
            NodeBuilder()
                .withNewMetadata()
                .withName(node.metadata?.name)
                .withResourceVersion(node.metadata?.resourceVersion)
                .withLabels<String, String>(node.metadata?.labels)
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(node.spec?.unschedulable)
                .withTaints(node.spec?.taints)
                .endSpec()
                .withNewStatus()
                .apply {
                    node.status
                        ?.allocatable
                        ?.get(CPU)
                        ?.let { addToAllocatable(CPU, it) }
                }.endStatus()
                .build()
    }
}
