package dev.danki.cluster.network

/** One pod's network, as the CNI plugin reported it: its namespace (a path) and its address. */
data class PodNetworkHandle(
    val netns: String,
    val ip: String,
)
