package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.OwnerReference
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder
import io.fabric8.kubernetes.api.model.Pod

/**
 * The owner references danki writes: whatever it creates goes with its owner through the garbage
 * collector. Never `blockOwnerDeletion`, which would need update rights on the owner's finalizers.
 */
object Owners {
    /** A reference to [owner], the controller of what carries it unless [controller] is false. */
    fun of(owner: HasMetadata, controller: Boolean = true): OwnerReference =
        of(owner.apiVersion, owner.kind, owner.metadata.name, owner.metadata.uid, controller)

    fun of(apiVersion: String, kind: String, name: String, uid: String, controller: Boolean = true): OwnerReference =
        OwnerReferenceBuilder()
            .withApiVersion(apiVersion)
            .withKind(kind)
            .withName(name)
            .withUid(uid)
            .withController(controller)
            .withBlockOwnerDeletion(false)
            .build()
}

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
