package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata

/**
 * The one way danki names a namespaced object in its maps, indexes and pool: "namespace/name", as
 * JOSDK's and client-go's cache keys do.
 */
object ObjectKeys {
    fun of(namespace: String, name: String): String = "$namespace/$name"

    fun of(resource: HasMetadata): String = of(resource.metadata.namespace, resource.metadata.name)
}

/** The HTTP status codes danki acts on in the API server's refusals. */
object ApiStatus {
    const val FORBIDDEN = 403
    const val NOT_FOUND = 404
    const val CONFLICT = 409
}
