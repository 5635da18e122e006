package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages

/**
 * Names every `danki.dev/` annotation danki would silently ignore: an unknown key on the Deployment
 * (a typo such as `danki.dev/warmpu` would leave its pods cold without a word), with the closest
 * known key, and danki's keys written on the pod template, where danki does not read them.
 */
object UnknownAnnotations {
    /** A suggestion is made only this close (edits); farther, a guess would mislead more than help. */
    private const val MAX_DISTANCE = 3

    /** One message per misplaced or unknown key, in key order. */
    fun of(deployment: Map<String, String>?, template: Map<String, String>?): List<String> {
        val unknown =
            deployment
                .orEmpty()
                .keys
                .filter { it.startsWith(Keys.PREFIX) && it !in Keys.Annotations.ON_DEPLOYMENT }
                .sorted()
                .map { key -> "unknown annotation ${Messages.quote(key)}${suggestion(key)}" }
        val misplaced =
            template
                .orEmpty()
                .keys
                .filter { it.startsWith(Keys.PREFIX) }
                .sorted()
                .map { key ->
                    "annotation ${Messages.quote(key)} is on the pod template, where danki does not read it; " +
                        "put it on the Deployment's own metadata.annotations"
                }
        return unknown + misplaced
    }

    private fun suggestion(key: String): String {
        val closest = Keys.Annotations.ON_DEPLOYMENT.minBy { distance(key, it) }
        return if (distance(key, closest) <= MAX_DISTANCE) "; did you mean $closest?" else ""
    }

    /** Levenshtein distance (insert, delete, replace), on the name after the prefix; keys are short. */
    internal fun distance(a: String, b: String): Int {
        val x = a.removePrefix(Keys.PREFIX).take(MAX_COMPARED)
        val y = b.removePrefix(Keys.PREFIX).take(MAX_COMPARED)
        var previous = IntArray(y.length + 1) { it }
        for (i in 1..x.length) {
            val current = IntArray(y.length + 1)
            current[0] = i
            for (j in 1..y.length) {
                val replace = previous[j - 1] + if (x[i - 1] == y[j - 1]) 0 else 1
                current[j] = minOf(previous[j] + 1, current[j - 1] + 1, replace)
            }
            previous = current
        }
        return previous[y.length]
    }

    /** A key name is at most 63 characters after its prefix; a longer (invalid) one is cut for the comparison. */
    private const val MAX_COMPARED = 63
}
