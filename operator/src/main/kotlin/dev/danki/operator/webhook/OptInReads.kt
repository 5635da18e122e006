package dev.danki.operator.webhook

import dev.danki.operator.kube.Caches
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient

/** The two sources [OptInLookup] reads: the operator's informer caches, and the API server itself. */
object OptInReads {
    fun cache(caches: Caches): OptInLookup.Reads =
        object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String): Deployment? =
                caches.deployments.get(namespace, name)

            override fun namespaceLabels(namespace: String): Map<String, String> = caches.namespaceLabels(namespace)
        }

    /** Plain GETs: served from etcd, so as fresh as the write that made the pod's ReplicaSet. */
    fun api(client: KubernetesClient): OptInLookup.Reads =
        object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String): Deployment? =
                client
                    .apps()
                    .deployments()
                    .inNamespace(namespace)
                    .withName(name)
                    .get()

            override fun namespaceLabels(namespace: String): Map<String, String>? =
                client
                    .namespaces()
                    .withName(namespace)
                    .get()
                    ?.metadata
                    ?.labels
        }
}
