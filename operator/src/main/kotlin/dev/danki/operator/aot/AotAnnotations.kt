package dev.danki.operator.aot

import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.Messages

/**
 * The two AOT annotations of a Deployment, checked apart from the warm-up plan: a bad value here never
 * changes how the Deployment's pods are warmed, it only keeps the cache as it is.
 */
data class AotAnnotations(
    val enabled: Boolean,
    /** `danki.dev/aot-train`: a new value asks for a new training. */
    val trainRequest: String?,
    /** What is wrong with the values, for a Warning Event; empty when nothing is. */
    val problems: List<String>,
) {
    companion object {
        const val MAX_TRAIN_REQUEST = 256
        private val CONTROL = Regex("\\p{Cntrl}")

        fun of(annotations: Map<String, String>): AotAnnotations {
            val problems = mutableListOf<String>()
            val raw = annotations[Annotations.AOT_CACHE]
            if (raw != null && raw.trim() != Annotations.ENABLED && raw.trim() != Annotations.DISABLED) {
                problems += "${Annotations.AOT_CACHE}=\"${Messages.quote(raw)}\": expected enabled or disabled"
            }
            val request = annotations[Annotations.AOT_TRAIN]
            val train = request?.takeIf { it.length <= MAX_TRAIN_REQUEST && !CONTROL.containsMatchIn(it) }
            if (request != null && train == null) {
                problems += "${Annotations.AOT_TRAIN}=\"${Messages.quote(request)}\": expected at most " +
                    "$MAX_TRAIN_REQUEST characters without control characters, e.g. a time"
            }
            return AotAnnotations(raw?.trim() == Annotations.ENABLED, train, problems)
        }
    }
}
