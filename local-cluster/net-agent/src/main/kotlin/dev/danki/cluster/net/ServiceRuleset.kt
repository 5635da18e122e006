package dev.danki.cluster.net

/**
 * The host's nftables table of one instance, which routes its pods' Service traffic as kube-proxy's
 * nftables mode would, for the traffic that enters from the instance's bridges only (so instances
 * never touch each other's packets, and each has a table of its own name):
 * - prerouting: a ClusterIP port is DNAT'ed to one of its ready endpoints, picked at random;
 * - a pod that reaches itself through its Service (hairpin) is masqueraded, else its reply would
 *   stay inside its own namespace; traffic to other pods keeps its source address, so their
 *   NetworkPolicies see the client (replies between pods of one bridge pass the host's conntrack
 *   because `net.bridge.bridge-nf-call-iptables` is 1, which node-up sets);
 * - forward: traffic to the Service range that no port took (no endpoints, unknown port) is
 *   refused at once, as kube-proxy does, instead of leaving the machine by its default route.
 * Replaced whole in one `nft -f` transaction (made first so the delete always finds it).
 */
object ServiceRuleset {
    /** The packet mark of hairpin traffic; nothing else here marks packets (kube-proxy uses the same bit). */
    const val HAIRPIN_MARK = "0x00004000"

    fun render(ports: List<ServicePort>, table: String, bridges: String, serviceCidr: String): String =
        buildString {
            appendLine("table ip $table")
            appendLine("delete table ip $table")
            appendLine("table ip $table {")
            appendLine("  chain prerouting {")
            appendLine("    type nat hook prerouting priority dstnat; policy accept;")
            appendLine("    iifname \"$bridges\" ip daddr $serviceCidr jump services")
            appendLine("  }")
            appendLine("  chain services {")
            ports.forEachIndexed { index, port ->
                if (port.backends.isNotEmpty()) {
                    val protocol = port.protocol.lowercase()
                    val match = "ip daddr ${port.clusterIp} meta l4proto $protocol th dport ${port.port}"
                    appendLine("    $match goto svc$index comment \"${port.id}\"")
                }
            }
            appendLine("  }")
            ports.forEachIndexed { index, port -> if (port.backends.isNotEmpty()) service(index, port) }
            appendLine("  chain postrouting {")
            appendLine("    type nat hook postrouting priority srcnat; policy accept;")
            // No iifname here: the kernel's output path runs postrouting without the input device.
            appendLine("    oifname \"$bridges\" meta mark & $HAIRPIN_MARK == $HAIRPIN_MARK masquerade")
            appendLine("  }")
            appendLine("  chain forward {")
            appendLine("    type filter hook forward priority filter; policy accept;")
            appendLine("    iifname \"$bridges\" ip daddr $serviceCidr meta l4proto tcp reject with tcp reset")
            appendLine("    iifname \"$bridges\" ip daddr $serviceCidr reject")
            appendLine("  }")
            appendLine("}")
        }

    /** The chain of one Service port: one endpoint chain per backend, picked at random when several. */
    private fun StringBuilder.service(index: Int, port: ServicePort) {
        appendLine("  chain svc$index {")
        if (port.backends.size == 1) {
            appendLine("    goto svc$index-0")
        } else {
            val choices = port.backends.indices.joinToString(", ") { "$it : goto svc$index-$it" }
            appendLine("    numgen random mod ${port.backends.size} vmap { $choices }")
        }
        appendLine("  }")
        port.backends.forEachIndexed { at, backend ->
            appendLine("  chain svc$index-$at {")
            appendLine("    ip saddr ${backend.ip} meta mark set meta mark or $HAIRPIN_MARK")
            appendLine("    meta l4proto ${port.protocol.lowercase()} dnat to $backend")
            appendLine("  }")
        }
    }
}
