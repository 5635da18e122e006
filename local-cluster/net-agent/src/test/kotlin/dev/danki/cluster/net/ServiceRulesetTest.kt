package dev.danki.cluster.net

import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFalse

class ServiceRulesetTest {
    private fun render(vararg ports: ServicePort) =
        ServiceRuleset.render(ports.toList(), "danki-r21", "dkr21-*", "10.96.0.0/12")

    private val api =
        ServicePort("default/kubernetes:https", "10.96.0.1", 443, "TCP", listOf(Endpoint("198.18.21.1", 6464)))

    @Test
    fun `the table is replaced whole and only traffic from the instance's bridges is translated`() {
        val script = render(api)
        assertEquals(
            listOf("table ip danki-r21", "delete table ip danki-r21", "table ip danki-r21 {"),
            script.lines().take(3),
        )
        assertContains(script, "iifname \"dkr21-*\" ip daddr 10.96.0.0/12 jump services")
        assertContains(
            script,
            "ip daddr 10.96.0.1 meta l4proto tcp th dport 443 goto svc0 comment \"default/kubernetes:https\"",
        )
        assertContains(script, "  chain svc0 {\n    goto svc0-0\n  }")
        assertContains(script, "meta l4proto tcp dnat to 198.18.21.1:6464")
    }

    @Test
    fun `several endpoints are picked at random, each marking its own hairpin traffic for masquerade`() {
        val web =
            ServicePort(
                "shop/web:http",
                "10.96.0.20",
                80,
                "TCP",
                listOf(Endpoint("198.19.8.3", 8080), Endpoint("198.19.9.2", 8080)),
            )
        val script = render(api, web)
        assertContains(script, "numgen random mod 2 vmap { 0 : goto svc1-0, 1 : goto svc1-1 }")
        assertContains(script, "  chain svc1-1 {\n    ip saddr 198.19.9.2 meta mark set meta mark or 0x00004000\n")
        assertContains(script, "oifname \"dkr21-*\" meta mark & 0x00004000 == 0x00004000 masquerade")
    }

    @Test
    fun `a port without endpoints gets no rule, so the forward chain refuses it`() {
        val script = render(ServicePort("shop/empty:80", "10.96.0.30", 80, "TCP", emptyList()))
        assertFalse("10.96.0.30" in script)
        assertContains(script, "iifname \"dkr21-*\" ip daddr 10.96.0.0/12 meta l4proto tcp reject with tcp reset")
    }

    @Test
    fun `the protocol of a UDP port is matched and translated as udp`() {
        val dns = ServicePort("kube-system/dns:dns", "10.96.0.10", 53, "UDP", listOf(Endpoint("198.19.8.5", 53)))
        val script = render(dns)
        assertContains(script, "ip daddr 10.96.0.10 meta l4proto udp th dport 53 goto svc0")
        assertContains(script, "meta l4proto udp dnat to 198.19.8.5:53")
    }
}
