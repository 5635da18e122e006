package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.IntOrString
import io.fabric8.kubernetes.api.model.LabelSelector
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort
import kotlin.test.Test
import kotlin.test.assertEquals

/** A rule: its peers (from or to) and its ports. */
private typealias Rule = Pair<List<NetworkPolicyPeer>?, List<NetworkPolicyPort>?>

class PolicyRulesTest {
    private val http = DeclaredPort("http", 8080, "TCP")
    private val server = PolicyPod("u-server", "shop", mapOf("app" to "server"), "198.18.0.2", listOf(http))
    private val client = PolicyPod("u-client", "shop", mapOf("app" to "client"), "198.18.0.3", emptyList())
    private val otherClient = PolicyPod("u-other", "other", mapOf("app" to "client"), "198.18.0.4", emptyList())
    private val monitor = PolicyPod("u-monitor", "ops", mapOf("app" to "monitor"), "198.18.0.5", listOf(http))
    private val pods = listOf(server, client, otherClient, monitor)
    private val namespaces =
        mapOf("shop" to mapOf("team" to "shop"), "other" to emptyMap(), "ops" to mapOf("team" to "ops"))

    private fun labels(vararg pairs: Pair<String, String>): LabelSelector =
        LabelSelectorBuilder().withMatchLabels<String, String>(mapOf(*pairs)).build()

    private fun policy(
        selector: LabelSelector,
        types: List<String>?,
        ingress: List<Rule> = emptyList(),
        egress: List<Rule> = emptyList(),
        namespace: String = "shop",
    ): NetworkPolicy {
        val builder =
            NetworkPolicyBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withPodSelector(selector)
                .withPolicyTypes(types)
        ingress.forEach { (from, ports) ->
            builder
                .addNewIngress()
                .withFrom(from)
                .withPorts(ports)
                .endIngress()
        }
        egress.forEach { (to, ports) ->
            builder
                .addNewEgress()
                .withTo(to)
                .withPorts(ports)
                .endEgress()
        }
        return builder.endSpec().build()
    }

    private fun pods(selector: LabelSelector) = NetworkPolicyPeerBuilder().withPodSelector(selector).build()

    private fun port(port: Any?, protocol: String? = null, endPort: Int? = null): NetworkPolicyPort {
        val number = port?.let { if (it is Int) IntOrString(it) else IntOrString(it as String) }
        return NetworkPolicyPort(endPort, number, protocol)
    }

    /** An Ingress policy for the server pod with [rules] (peers to ports). */
    private fun serverIngress(vararg rules: Rule): NetworkPolicy {
        val server = labels("app" to "server")
        return policy(server, listOf("Ingress"), ingress = rules.toList())
    }

    /** An Egress policy for the client pod with [rules] (peers to ports). */
    private fun clientEgress(vararg rules: Rule): NetworkPolicy {
        val client = labels("app" to "client")
        return policy(client, listOf("Egress"), egress = rules.toList())
    }

    private fun rules(target: PolicyPod, vararg policies: NetworkPolicy) =
        PolicyRules.forPod(target, ClusterView(policies.toList(), pods, namespaces))

    @Test
    fun `a pod no policy selects is open both ways`() {
        val onlyClients = policy(labels("app" to "client"), listOf("Ingress"))
        assertEquals(PodFirewall.OPEN, rules(server, onlyClients))
    }

    @Test
    fun `a policy in another namespace does not select the pod`() {
        assertEquals(PodFirewall.OPEN, rules(server, policy(LabelSelector(), listOf("Ingress"), namespace = "ops")))
    }

    @Test
    fun `an ingress policy without rules isolates ingress only and allows nothing`() {
        assertEquals(PodFirewall(emptyList(), null), rules(server, policy(LabelSelector(), listOf("Ingress"))))
    }

    @Test
    fun `without policyTypes a policy is Ingress, plus Egress when it has egress rules`() {
        val withEgress = policy(LabelSelector(), null, egress = listOf(null to null))
        assertEquals(listOf("Ingress"), PolicyRules.typesOf(policy(LabelSelector(), null)))
        assertEquals(listOf("Ingress", "Egress"), PolicyRules.typesOf(withEgress))
    }

    @Test
    fun `a podSelector peer means pods of the policy's own namespace`() {
        val policy = serverIngress(listOf(pods(labels("app" to "client"))) to null)
        assertEquals(listOf(AllowRule(AddressMatch(listOf("198.18.0.3")))), rules(server, policy).ingress)
    }

    @Test
    fun `a namespaceSelector peer means every pod of the namespaces it picks`() {
        val peer = NetworkPolicyPeerBuilder().withNamespaceSelector(labels("team" to "ops")).build()
        val policy = serverIngress(listOf(peer) to null)
        assertEquals(listOf(AllowRule(AddressMatch(listOf("198.18.0.5")))), rules(server, policy).ingress)
    }

    @Test
    fun `a peer with both selectors means those pods in those namespaces`() {
        val peer =
            NetworkPolicyPeerBuilder()
                .withNamespaceSelector(LabelSelector())
                .withPodSelector(labels("app" to "client"))
                .build()
        val policy = serverIngress(listOf(peer) to null)
        assertEquals(listOf(AllowRule(AddressMatch(listOf("198.18.0.3", "198.18.0.4")))), rules(server, policy).ingress)
    }

    @Test
    fun `an ipBlock peer keeps its except list`() {
        val peer = NetworkPolicyPeerBuilder().withIpBlock(IPBlock("10.0.0.0/8", listOf("10.1.0.0/16"))).build()
        val policy = clientEgress(listOf(peer) to null)
        val allowed = AllowRule(AddressMatch(listOf("10.0.0.0/8"), listOf("10.1.0.0/16")))
        assertEquals(PodFirewall(null, listOf(allowed)), rules(client, policy))
    }

    @Test
    fun `ports take a protocol, an endPort, or no number for the whole protocol`() {
        val ports = listOf(port(80), port(9000, "UDP", endPort = 9010), port(null, "SCTP"))
        val policy = serverIngress(null to ports)
        assertEquals(
            listOf(
                AllowRule(null, "TCP", listOf(PortRange(80))),
                AllowRule(null, "UDP", listOf(PortRange(9000, 9010))),
                AllowRule(null, "SCTP"),
            ),
            rules(server, policy).ingress,
        )
    }

    @Test
    fun `a named ingress port is the target pod's port, and an unknown name allows nothing`() {
        val named = serverIngress(null to listOf(port("http")))
        assertEquals(listOf(AllowRule(null, "TCP", listOf(PortRange(8080)))), rules(server, named).ingress)
        val unknown = serverIngress(null to listOf(port("grpc")))
        assertEquals(emptyList(), rules(server, unknown).ingress, "an unresolved port must not mean every port")
        val wrongProtocol = serverIngress(null to listOf(port("http", "UDP")))
        assertEquals(emptyList(), rules(server, wrongProtocol).ingress)
    }

    @Test
    fun `a named egress port is each destination pod's own`() {
        val everyone = NetworkPolicyPeerBuilder().withNamespaceSelector(LabelSelector()).build()
        val policy = clientEgress(listOf(everyone) to listOf(port("http")))
        assertEquals(
            listOf(
                AllowRule(AddressMatch(listOf("198.18.0.2")), "TCP", listOf(PortRange(8080))),
                AllowRule(AddressMatch(listOf("198.18.0.5")), "TCP", listOf(PortRange(8080))),
            ),
            rules(client, policy).egress,
        )
    }

    @Test
    fun `a peer that selects no pod allows nothing`() {
        val policy = serverIngress(listOf(pods(labels("app" to "nobody"))) to null)
        assertEquals(emptyList(), rules(server, policy).ingress)
    }

    @Test
    fun `the rules of every selecting policy add up`() {
        val fromClients =
            policy(
                labels("app" to "server"),
                listOf("Ingress"),
                ingress =
                    listOf(listOf(pods(labels("app" to "client"))) to null),
            )
        val onPort = policy(LabelSelector(), listOf("Ingress", "Egress"), ingress = listOf(null to listOf(port(9090))))
        val firewall = rules(server, fromClients, onPort)
        assertEquals(
            listOf(AllowRule(AddressMatch(listOf("198.18.0.3"))), AllowRule(null, "TCP", listOf(PortRange(9090)))),
            firewall.ingress,
        )
        assertEquals(emptyList(), firewall.egress)
    }
}
