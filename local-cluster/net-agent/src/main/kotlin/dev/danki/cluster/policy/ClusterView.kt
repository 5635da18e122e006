package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy

/** A port a container declares; a named one can be the target of a NetworkPolicy port. */
data class DeclaredPort(
    val name: String?,
    val port: Int,
    val protocol: String,
)

/** What a NetworkPolicy can select or be about for one pod. */
data class PolicyPod(
    val uid: String,
    val namespace: String,
    val labels: Map<String, String>,
    /** Null until the pod has an address. */
    val ip: String?,
    val ports: List<DeclaredPort>,
) {
    companion object {
        /** [pod] as policies see it; [ip] is the address the agent gave it, before the API server shows it. */
        fun of(pod: Pod, ip: String? = pod.status?.podIP) =
            PolicyPod(
                uid = pod.metadata.uid,
                namespace = pod.metadata.namespace,
                labels = pod.metadata.labels.orEmpty(),
                ip = ip?.takeIf { it.isNotEmpty() },
                ports =
                    pod.spec
                        ?.containers
                        .orEmpty()
                        .flatMap { it.ports.orEmpty() }
                        .map { DeclaredPort(it.name, it.containerPort, it.protocol ?: "TCP") },
            )
    }
}

/** Everything the rules of one pod depend on: the policies, the pods (peers) and the namespaces' labels. */
data class ClusterView(
    val policies: List<NetworkPolicy>,
    /** Pods that hold an address; finished pods (Succeeded, Failed) are left out, as their addresses are. */
    val pods: List<PolicyPod>,
    val namespaceLabels: Map<String, Map<String, String>>,
)
