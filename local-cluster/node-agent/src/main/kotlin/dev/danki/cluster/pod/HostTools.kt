package dev.danki.cluster.pod

import java.io.File

/** Absolute paths of the host programs the agent runs containers through, found once on the agent's PATH. */
data class HostTools(
    val setsid: String,
    val ip: String,
    val sh: String,
    /** nftables, for NetworkPolicies; null when missing (only pods that a policy selects need it). */
    val nft: String? = null,
) {
    companion object {
        private const val SBIN_NFT = "/usr/sbin/nft"

        fun fromPath(path: String = System.getenv("PATH").orEmpty()): HostTools {
            fun lookUp(name: String): String? =
                path
                    .split(File.pathSeparator)
                    .map { File(it, name) }
                    .firstOrNull { it.canExecute() }
                    ?.absolutePath

            fun find(name: String): String = lookUp(name) ?: error("$name not found on PATH ($path)")
            // Debian puts nft in /usr/sbin, which a non-login PATH may lack.
            val nft = lookUp("nft") ?: SBIN_NFT.takeIf { File(it).canExecute() }
            return HostTools(find("setsid"), find("ip"), find("sh"), nft)
        }
    }
}
