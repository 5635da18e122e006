package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.LabelSelector

/**
 * Whether [labels] satisfy this selector, by the API's rules: every `matchLabels` pair and every
 * `matchExpressions` requirement (In, NotIn, Exists, DoesNotExist) must hold; an empty selector
 * matches everything. An unknown operator matches nothing, so a typo never opens traffic.
 */
fun LabelSelector.matches(labels: Map<String, String>): Boolean {
    val pairs = matchLabels.orEmpty().all { (key, value) -> labels[key] == value }
    return pairs &&
        matchExpressions.orEmpty().all { requirement ->
            val value = labels[requirement.key]
            val values = requirement.values.orEmpty()
            when (requirement.operator) {
                "In" -> value != null && value in values
                "NotIn" -> value == null || value !in values
                "Exists" -> value != null
                "DoesNotExist" -> value == null
                else -> false
            }
        }
}
