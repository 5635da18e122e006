package dev.danki.cluster.status

/** Why the node ended a pod Failed on its own (`status.reason` and `status.message`), such as DeadlineExceeded. */
data class PodFailure(
    val reason: String,
    val message: String,
)
