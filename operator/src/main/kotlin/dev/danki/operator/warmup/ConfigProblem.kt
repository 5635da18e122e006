package dev.danki.operator.warmup

import dev.danki.operator.kube.Messages

/** One invalid annotation: which key, what it held, and what danki expected instead. */
data class ConfigProblem(
    val key: String,
    val value: String,
    val expected: String,
) {
    override fun toString() = "$key=\"${Messages.quote(value)}\": expected $expected"
}
