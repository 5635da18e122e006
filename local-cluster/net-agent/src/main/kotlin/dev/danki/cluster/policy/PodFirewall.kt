package dev.danki.cluster.policy

/** Addresses a rule matches: any of [include] (addresses or CIDRs), but none of [exclude]. */
data class AddressMatch(
    val include: List<String>,
    val exclude: List<String> = emptyList(),
)

/** An inclusive port range; a single port is a range of one. */
data class PortRange(
    val from: Int,
    val to: Int = from,
)

/**
 * One kind of traffic a pod accepts (ingress) or may send (egress): from or to [addresses] (null:
 * any), over [protocol] (null: any) and to one of [ports] (empty: any port of the protocol).
 */
data class AllowRule(
    val addresses: AddressMatch?,
    val protocol: String? = null,
    val ports: List<PortRange> = emptyList(),
)

/**
 * The traffic the NetworkPolicies selecting one pod allow. A null direction is not isolated (no
 * policy of that type selects the pod): everything passes. An isolated one allows only the union
 * of its rules (none: nothing), besides replies to allowed connections and loopback.
 */
data class PodFirewall(
    val ingress: List<AllowRule>?,
    val egress: List<AllowRule>?,
) {
    val isolated: Boolean get() = ingress != null || egress != null

    companion object {
        val OPEN = PodFirewall(null, null)
    }
}
