package dev.danki.cluster.policy

import dev.danki.cluster.network.HostCommand
import dev.danki.cluster.network.HostCommandException

/** Loads an nftables script into a pod's network namespace; tests pass a recorder. */
fun interface RulesetLoader {
    /** Applies [script] in [netns] as one transaction; throws [HostCommandException] when nft refuses it. */
    fun load(netns: String, script: String)
}

/**
 * `ip netns exec <netns> nft -f -`, with nft from Debian's nftables package (cluster-up installs
 * it). Without nft, loading fails with a message that says how to get it, so a pod that a policy
 * selects does not start unprotected.
 */
class NftCommand(
    private val ip: String,
    private val nft: String?,
) : RulesetLoader {
    override fun load(netns: String, script: String) {
        val binary = nft ?: throw HostCommandException(NFT_MISSING)
        HostCommand.runWithInput(script, ip, "netns", "exec", netns, binary, "-f", "-")
    }

    private companion object {
        const val NFT_MISSING =
            "nft not found on PATH: NetworkPolicies need Debian's nftables package (apt-get install nftables)"
    }
}
