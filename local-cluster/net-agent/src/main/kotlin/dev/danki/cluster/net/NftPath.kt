package dev.danki.cluster.net

import java.io.File

/** Debian puts nft in /usr/sbin, which a non-login PATH may lack. */
private const val SBIN_NFT = "/usr/sbin/nft"

/** The absolute path of nft (Debian's nftables package) on [path] or in /usr/sbin; null when missing. */
fun nftPath(path: String = System.getenv("PATH").orEmpty()): String? =
    (path.split(File.pathSeparator).map { File(it, "nft") } + File(SBIN_NFT))
        .firstOrNull { it.canExecute() }
        ?.absolutePath
