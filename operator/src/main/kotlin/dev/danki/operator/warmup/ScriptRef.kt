package dev.danki.operator.warmup

/**
 * A custom k6 flow: a key of a ConfigMap in the Deployment's own namespace, run in a runner pod
 * with the whole ConfigMap beside it, and optionally a Secret mounted for the flow alone.
 */
data class ScriptRef(
    val configMap: String,
    val key: String = DEFAULT_KEY,
    val secret: String? = null,
) {
    companion object {
        const val DEFAULT_KEY = "flow.js"
    }
}
