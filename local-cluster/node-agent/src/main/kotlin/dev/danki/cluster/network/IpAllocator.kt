package dev.danki.cluster.network

/**
 * Hands out pod addresses from a /24 (`a.b.c.0/24`): .1 is the bridge, .2 to .254 go to pods.
 * Addresses are taken lowest first and given back when a pod goes away.
 */
class IpAllocator(
    cidr: String,
) {
    private val prefix: String
    private val taken = sortedSetOf<Int>()

    init {
        val match = Regex("""(\d+\.\d+\.\d+)\.0/24""").matchEntire(cidr)
        requireNotNull(match) { "pod range must be a /24 ending in .0, got $cidr" }
        prefix = match.groupValues[1]
    }

    /** The bridge's own address. */
    val gateway: String get() = "$prefix.$GATEWAY"

    /** Takes a free address; throws when all are in use. */
    @Synchronized
    fun allocate(): String {
        val host = (FIRST..LAST).firstOrNull { it !in taken } ?: error("no free pod address in $prefix.0/24")
        taken += host
        return "$prefix.$host"
    }

    /** Takes [ip] if it is in range and free (a pod keeps its address across agent restarts); false otherwise. */
    @Synchronized
    fun claim(ip: String): Boolean {
        val host = hostPart(ip) ?: return false
        return taken.add(host)
    }

    @Synchronized
    fun release(ip: String) {
        hostPart(ip)?.let { taken -= it }
    }

    private fun hostPart(ip: String): Int? {
        if (!ip.startsWith("$prefix.")) return null
        return ip.removePrefix("$prefix.").toIntOrNull()?.takeIf { it in FIRST..LAST }
    }

    private companion object {
        const val GATEWAY = 1
        const val FIRST = 2
        const val LAST = 254
    }
}
