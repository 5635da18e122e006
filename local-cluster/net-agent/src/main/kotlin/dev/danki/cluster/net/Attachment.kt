package dev.danki.cluster.net

/**
 * One pod sandbox the CNI plugin attached: its containerd sandbox id, the pod it belongs to, the
 * path of its network namespace and its address. The net agent keeps them in its state file.
 */
data class Attachment(
    val containerId: String = "",
    val namespace: String = "",
    val name: String = "",
    val uid: String = "",
    val netns: String = "",
    val ip: String = "",
) {
    /** The address of the node the pod runs on (a function: not written to the file). */
    fun nodeIp(): String = nodeIpOf(ip)

    companion object {
        /** A pod's node is its bridge, `.1` of the pod's /24 (node-env.sh). */
        fun nodeIpOf(podIp: String): String = podIp.substringBeforeLast('.') + ".1"
    }
}
