package dev.danki.operator.controller

/** A queued object: a Deployment or a pod, by namespace and name. */
data class WorkItem(
    val kind: Kind,
    val namespace: String,
    val name: String,
) {
    enum class Kind { DEPLOYMENT, POD }
}
