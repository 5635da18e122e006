package dev.danki.cluster.policy

import dev.danki.cluster.network.HostCommandException

/** Loads an nftables script into a pod's network namespace; tests pass a recorder. */
fun interface RulesetLoader {
    /** Applies [script] in [netns] as one transaction; throws [HostCommandException] when nft refuses it. */
    fun load(netns: String, script: String)
}
