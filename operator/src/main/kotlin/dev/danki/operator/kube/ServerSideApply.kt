package dev.danki.operator.kube

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
}
