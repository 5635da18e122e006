package dev.danki.operator.gate

/** The `danki.dev/warmed` condition as danki wants it on a pod; [GateRule] picks it. */
data class GateCondition(
    val status: Boolean,
    val reason: String,
    val message: String,
)
