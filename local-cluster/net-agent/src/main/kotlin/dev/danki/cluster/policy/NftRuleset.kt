package dev.danki.cluster.policy

/**
 * A pod's [PodFirewall] as an nftables script for its own network namespace: one `inet` table,
 * replaced whole in one `nft -f` transaction (made first so the delete always finds it), so the
 * pod never runs with half its rules. An isolated direction gets a chain whose policy is drop and
 * which accepts loopback, replies to allowed connections (conntrack established, related), the
 * rules, and for ingress the node itself: Kubernetes never lets a pod refuse its node (probes).
 */
object NftRuleset {
    const val TABLE = "danki"

    /** The script for [firewall] of a pod on the node whose address is [nodeIp]. */
    fun render(firewall: PodFirewall, nodeIp: String): String =
        buildString {
            appendLine("table inet $TABLE")
            appendLine("delete table inet $TABLE")
            if (!firewall.isolated) return@buildString
            appendLine("table inet $TABLE {")
            firewall.ingress?.let { rules ->
                val node = listOf("ip saddr $nodeIp accept")
                chain("ingress", "input", "iif", rules.flatMap { lines(it, "saddr") }, node)
            }
            firewall.egress?.let { rules ->
                chain("egress", "output", "oif", rules.flatMap { lines(it, "daddr") }, emptyList())
            }
            appendLine("}")
        }

    private fun StringBuilder.chain(
        name: String,
        hook: String,
        interfaceKey: String,
        rules: List<String>,
        always: List<String>,
    ) {
        appendLine("  chain $name {")
        appendLine("    type filter hook $hook priority filter; policy drop;")
        appendLine("    $interfaceKey \"lo\" accept")
        appendLine("    ct state established,related accept")
        (always + rules.distinct()).forEach { appendLine("    $it") }
        appendLine("  }")
    }

    /** One line per address family of [rule] (nft sets hold one family). */
    private fun lines(rule: AllowRule, direction: String): List<String> {
        val ports = portPart(rule)
        val addresses = rule.addresses ?: return listOf(listOfNotNull(ports, "accept").joinToString(" "))
        return addresses.include.groupBy(::family).map { (family, include) ->
            val exclude = addresses.exclude.filter { family(it) == family }
            listOfNotNull(
                "$family $direction ${set(include)}",
                exclude.takeIf { it.isNotEmpty() }?.let { "$family $direction != ${set(it)}" },
                ports,
                "accept",
            ).joinToString(" ")
        }
    }

    private fun portPart(rule: AllowRule): String? {
        val protocol = rule.protocol?.lowercase() ?: return null
        if (rule.ports.isEmpty()) return "meta l4proto $protocol"
        val ports = rule.ports.map { if (it.from == it.to) "${it.from}" else "${it.from}-${it.to}" }
        return "meta l4proto $protocol th dport ${set(ports)}"
    }

    private fun family(address: String) = if (':' in address) "ip6" else "ip"

    private fun set(items: List<String>) = if (items.size == 1) items.single() else items.joinToString(", ", "{ ", " }")
}
