package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.OwnerReference
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder

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
