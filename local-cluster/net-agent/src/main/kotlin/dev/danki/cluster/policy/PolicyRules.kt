package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort

/**
 * The NetworkPolicy semantics of the Kubernetes API, for one pod: the policies in its namespace
 * whose podSelector matches it isolate it for their policyTypes, and it then allows only the union
 * of their rules. A rule's peers (any of them) and ports (any of them) must both match; no peers
 * means every address, no ports every port. A peer is an ipBlock (cidr minus except), or pods by
 * podSelector in the policy's namespace, or in the namespaces a namespaceSelector picks (both
 * together: those pods in those namespaces). A named port is the target pod's for ingress; for
 * egress it is each destination pod's own, so it only matches pods, never an ipBlock.
 */
object PolicyRules {
    const val INGRESS = "Ingress"
    const val EGRESS = "Egress"
    private const val DEFAULT_PROTOCOL = "TCP"

    fun forPod(target: PolicyPod, cluster: ClusterView): PodFirewall {
        val selecting =
            cluster.policies.filter { policy ->
                policy.metadata.namespace == target.namespace &&
                    (policy.spec.podSelector?.matches(target.labels) ?: true)
            }
        val ingress =
            selecting.filter { INGRESS in typesOf(it) }.takeIf { it.isNotEmpty() }?.flatMap { policy ->
                policy.spec.ingress.orEmpty().flatMap { rule ->
                    rulesFor(Direction(INGRESS, policy, target, cluster), rule.from, rule.ports)
                }
            }
        val egress =
            selecting.filter { EGRESS in typesOf(it) }.takeIf { it.isNotEmpty() }?.flatMap { policy ->
                policy.spec.egress.orEmpty().flatMap { rule ->
                    rulesFor(Direction(EGRESS, policy, target, cluster), rule.to, rule.ports)
                }
            }
        return PodFirewall(ingress, egress)
    }

    /** The API server defaults policyTypes; this repeats its default for an object that has none. */
    fun typesOf(policy: NetworkPolicy): List<String> =
        policy.spec.policyTypes?.takeIf { it.isNotEmpty() }
            ?: (listOf(INGRESS) + if (policy.spec.egress.isNullOrEmpty()) emptyList() else listOf(EGRESS))

    /** Which way a rule points, and what it is evaluated against. */
    private class Direction(
        val type: String,
        val policy: NetworkPolicy,
        val target: PolicyPod,
        val cluster: ClusterView,
    )

    private fun rulesFor(
        direction: Direction,
        peers: List<NetworkPolicyPeer>?,
        ports: List<NetworkPolicyPort>?,
    ): List<AllowRule> {
        val anyPeer = peers.isNullOrEmpty()
        val peerPods = if (anyPeer) direction.cluster.pods else peers.orEmpty().flatMap { podsOf(it, direction) }
        val addresses = if (anyPeer) listOf(null) else addressesOf(peers.orEmpty(), peerPods)
        if (ports.isNullOrEmpty()) return addresses.map { AllowRule(it) }
        return ports.flatMap { port ->
            val protocol = port.protocol ?: DEFAULT_PROTOCOL
            val number = port.port
            when {
                number == null -> {
                    addresses.map { AllowRule(it, protocol) }
                }

                number.strVal == null -> {
                    val range = PortRange(number.intVal, port.endPort ?: number.intVal)
                    addresses.map { AllowRule(it, protocol, listOf(range)) }
                }

                direction.type == INGRESS -> {
                    namedPorts(direction.target, number.strVal, protocol).flatMap { range ->
                        addresses.map { AllowRule(it, protocol, listOf(range)) }
                    }
                }

                else -> {
                    namedEgress(peerPods, number.strVal, protocol)
                }
            }
        }
    }

    /** The ipBlocks of [peers], each with its except list, and the addresses of the [pods] they pick. */
    private fun addressesOf(peers: List<NetworkPolicyPeer>, pods: List<PolicyPod>): List<AddressMatch> {
        val blocks = peers.mapNotNull { it.ipBlock }.map { AddressMatch(listOf(it.cidr), it.except.orEmpty()) }
        val podIps = pods.mapNotNull { it.ip }.distinct()
        return blocks + listOfNotNull(podIps.takeIf { it.isNotEmpty() }?.let { AddressMatch(it) })
    }

    /** An egress named port: each destination pod's own port of that name, to that pod's address only. */
    private fun namedEgress(destinations: List<PolicyPod>, name: String, protocol: String): List<AllowRule> =
        destinations.flatMap { pod ->
            val address = pod.ip?.let { AddressMatch(listOf(it)) } ?: return@flatMap emptyList()
            namedPorts(pod, name, protocol).map { AllowRule(address, protocol, listOf(it)) }
        }

    private fun namedPorts(pod: PolicyPod, name: String, protocol: String): List<PortRange> =
        pod.ports
            .filter { it.name == name && it.protocol == protocol }
            .map { PortRange(it.port) }
            .distinct()

    /** The pods a podSelector and/or namespaceSelector peer picks; none for an ipBlock peer. */
    private fun podsOf(peer: NetworkPolicyPeer, direction: Direction): List<PolicyPod> {
        if (peer.podSelector == null && peer.namespaceSelector == null) return emptyList()
        val cluster = direction.cluster
        val namespaces: (String) -> Boolean =
            peer.namespaceSelector?.let { selector ->
                { namespace -> selector.matches(cluster.namespaceLabels[namespace].orEmpty()) }
            } ?: { namespace -> namespace == direction.policy.metadata.namespace }
        return cluster.pods.filter { pod ->
            namespaces(pod.namespace) && (peer.podSelector?.matches(pod.labels) ?: true)
        }
    }
}
