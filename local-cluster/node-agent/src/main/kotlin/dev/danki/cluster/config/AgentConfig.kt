package dev.danki.cluster.config

import java.nio.file.Path

/**
 * Everything the node agent needs to know about its instance of the local cluster.
 * cluster-up.sh passes every field as a `--name=value` argument.
 */
data class AgentConfig(
    /** Admin kubeconfig of the cluster; the agent acts with full rights, unlike a real kubelet. */
    val kubeconfig: Path,
    /** Name of the Node this agent plays the kubelet for. */
    val nodeName: String,
    /** Cluster instance number; names of the agent's netns and veths carry it, so instances never touch each other. */
    val instance: Int,
    /** Host bridge that every pod's veth joins. */
    val bridge: String,
    /** The bridge's own address: pods' default gateway and where they reach the API server. */
    val bridgeIp: String,
    /** Pod address range, a /24 inside 198.18.0.0/15. */
    val podCidr: String,
    /** API server port, published to pods as KUBERNETES_SERVICE_PORT. */
    val apiPort: Int,
    /** Cluster CA certificate, copied into each pod's service-account directory as ca.crt. */
    val caFile: Path,
    /** Repository root: catalog paths and commands are relative to it. */
    val repo: Path,
    /** Image catalog file (image name to local command). */
    val catalog: Path,
    /** Where pod logs, service-account tokens and other per-pod files go. */
    val stateDir: Path,
    /** Longest grace period the agent gives its pods when it is itself stopped. */
    val shutdownGraceSeconds: Long = DEFAULT_SHUTDOWN_GRACE_SECONDS,
) {
    /** Prefix of every network namespace this agent creates (`danki<instance>-`). */
    val netnsPrefix: String get() = "danki$instance-"

    /** Prefix of every host-side veth this agent creates (`dk<instance>v`); link names have 15 bytes at most. */
    val vethPrefix: String get() = "dk${instance}v"

    companion object {
        /** cluster-down waits 45 s for the agent; this leaves time to remove namespaces afterwards. */
        const val DEFAULT_SHUTDOWN_GRACE_SECONDS = 20L
    }
}
