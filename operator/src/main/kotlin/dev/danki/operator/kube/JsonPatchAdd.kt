package dev.danki.operator.kube

/**
 * JSON Patch (RFC 6902) `add` operations, as the webhook answers a pod's admission with them. `add` of a
 * member that exists replaces it; adding into a list or map the pod does not have yet adds the whole of it.
 */
object JsonPatchAdd {
    fun op(path: String, value: Any): Map<String, Any> = mapOf("op" to "add", "path" to path, "value" to value)

    /** Adds [value] to the list at [path]: the whole list when there is none yet (or an empty one), else appended. */
    fun toList(path: String, existing: List<*>?, value: Any): Map<String, Any> =
        if (existing.isNullOrEmpty()) op(path, listOf(value)) else op("$path/-", value)

    /** Adds [key] to the map at [path]: the whole map when it is empty (fabric8 reads an absent one as empty). */
    fun toMap(path: String, existing: Map<String, *>?, key: String, value: String): Map<String, Any> =
        if (existing.isNullOrEmpty()) op(path, mapOf(key to value)) else op("$path/${escape(key)}", value)

    /** JSON Pointer escaping (RFC 6901): `~` then `/`. */
    private fun escape(key: String) = key.replace("~", "~0").replace("/", "~1")
}
