package dev.danki.operator.warmup

/** The pod a warm-up is for: where it is, and the one address traffic may go to. */
data class TargetPod(
    val namespace: String,
    val name: String,
    val uid: String,
    val ip: String,
)
