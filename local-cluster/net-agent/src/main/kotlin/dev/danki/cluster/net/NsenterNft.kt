package dev.danki.cluster.net

import dev.danki.cluster.network.HostCommand
import dev.danki.cluster.policy.RulesetLoader

/**
 * Loads a pod's ruleset into its network namespace given by path (containerd mounts them under
 * its state dir, not as names `ip netns exec` knows): `nsenter --net=<path> nft -f -`.
 */
class NsenterNft(
    private val nft: String,
) : RulesetLoader {
    override fun load(netns: String, script: String) {
        HostCommand.runWithInput(script, NSENTER, "--net=$netns", nft, "-f", "-")
    }

    private companion object {
        const val NSENTER = "nsenter"
    }
}
