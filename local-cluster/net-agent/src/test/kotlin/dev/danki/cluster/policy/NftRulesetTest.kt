package dev.danki.cluster.policy

import kotlin.test.Test
import kotlin.test.assertEquals

class NftRulesetTest {
    @Test
    fun `an open pod gets only the removal of an earlier table`() {
        assertEquals("table inet danki\ndelete table inet danki\n", NftRuleset.render(PodFirewall.OPEN, "198.18.0.1"))
    }

    @Test
    fun `isolated directions drop all but loopback, replies, the node (ingress) and the rules`() {
        val firewall =
            PodFirewall(
                ingress =
                    listOf(
                        AllowRule(AddressMatch(listOf("198.18.0.3", "198.18.0.4")), "TCP", listOf(PortRange(8080))),
                        AllowRule(AddressMatch(listOf("10.0.0.0/8", "fd00::/8"), listOf("10.1.0.0/16")), "UDP"),
                    ),
                egress = listOf(AllowRule(null, "TCP", listOf(PortRange(80), PortRange(9000, 9010)))),
            )
        val expected =
            """
            table inet danki
            delete table inet danki
            table inet danki {
              chain ingress {
                type filter hook input priority filter; policy drop;
                iif "lo" accept
                ct state established,related accept
                ip saddr 198.18.0.1 accept
                ip saddr { 198.18.0.3, 198.18.0.4 } meta l4proto tcp th dport 8080 accept
                ip saddr 10.0.0.0/8 ip saddr != 10.1.0.0/16 meta l4proto udp accept
                ip6 saddr fd00::/8 meta l4proto udp accept
              }
              chain egress {
                type filter hook output priority filter; policy drop;
                oif "lo" accept
                ct state established,related accept
                meta l4proto tcp th dport { 80, 9000-9010 } accept
              }
            }

            """.trimIndent()
        assertEquals(expected, NftRuleset.render(firewall, "198.18.0.1"))
    }

    @Test
    fun `an isolated direction without rules only keeps loopback and replies`() {
        val script = NftRuleset.render(PodFirewall(null, emptyList()), "198.18.0.1")
        assertEquals(false, "chain ingress" in script)
        assertEquals(true, "chain egress {\n    type filter hook output priority filter; policy drop;" in script)
    }
}
