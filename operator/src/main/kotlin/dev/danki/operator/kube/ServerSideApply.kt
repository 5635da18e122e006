package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.client.CustomResource
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType

/**
 * Every danki write is a server-side apply as field manager `danki`, forcing conflicts: danki owns
 * what it sets. Top-level objects use fabric8's `fieldManager(...).forceConflicts().serverSideApply()`;
 * a `status` subresource has no such form in fabric8 7.5, so its typed apply configuration is patched
 * with this context.
 */
object ServerSideApply {
    val CONTEXT: PatchContext =
        PatchContext
            .Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(Keys.FIELD_MANAGER)
            .withForce(true)
            .build()

    /** Replaces the whole status (danki owns all of it) of [resource] (a new one) [namespace]/[name] with [status]. */
    fun <S> status(
        client: KubernetesClient,
        resource: CustomResource<*, S>,
        namespace: String,
        name: String,
        status: S,
    ) {
        resource.metadata = ObjectMetaBuilder().withName(name).withNamespace(namespace).build()
        resource.status = status
        client.resource(resource).subresource("status").patch(CONTEXT)
    }
}
