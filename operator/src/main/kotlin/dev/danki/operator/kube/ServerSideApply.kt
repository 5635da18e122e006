package dev.danki.operator.kube

import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType

/** Every danki write is a server-side apply as field manager `danki`, forcing conflicts: danki owns what it sets. */
object ServerSideApply {
    val CONTEXT: PatchContext =
        PatchContext
            .Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(Keys.FIELD_MANAGER)
            .withForce(true)
            .build()
}
