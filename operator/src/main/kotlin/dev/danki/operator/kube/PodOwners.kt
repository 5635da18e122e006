package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Pod

/** Finds a pod's Deployment without caching ReplicaSets: the ReplicaSet is `<deployment>-<pod-template-hash>`. */
object PodOwners {
    fun deploymentOf(pod: Pod): String? {
        val owner =
            pod.metadata?.ownerReferences?.firstOrNull { it.kind == "ReplicaSet" && it.controller == true }
                ?: return null
        val hash = pod.metadata?.labels?.get(Keys.POD_TEMPLATE_HASH) ?: return null
        val suffix = "-$hash"
        return owner.name.takeIf { it.endsWith(suffix) }?.removeSuffix(suffix)
    }
}
