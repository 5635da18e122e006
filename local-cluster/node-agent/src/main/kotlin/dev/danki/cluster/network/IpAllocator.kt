package dev.danki.cluster.network

import java.time.Duration
import java.time.Instant

/**
 * Hands out pod addresses from a /24 (`a.b.c.0/24`): .1 is the bridge, .2 to .254 go to pods.
 * Addresses are taken lowest first and given back when a pod goes away; one given back rests for
 * [quarantine] while another is free, so that no neighbour still maps it to the old pod's MAC.
 */
class IpAllocator(
    cidr: String,
    private val quarantine: Duration = QUARANTINE,
    private val clock: () -> Instant = Instant::now,
) {
    private val prefix: String
    private val taken = sortedSetOf<Int>()

    /** When each free address was given back; addresses never used are not here. */
    private val releasedAt = mutableMapOf<Int, Instant>()

    init {
        val match = Regex("""(\d+\.\d+\.\d+)\.0/24""").matchEntire(cidr)
        requireNotNull(match) { "pod range must be a /24 ending in .0, got $cidr" }
        prefix = match.groupValues[1]
    }

    /** The bridge's own address. */
    val gateway: String get() = "$prefix.$GATEWAY"

    /**
     * Takes the lowest free address that is not resting; when every free one is, the one given
     * back longest ago. Throws when all are in use.
     */
    @Synchronized
    fun allocate(): String {
        val now = clock()
        val free = (FIRST..LAST).filter { it !in taken }
        val host =
            free.firstOrNull { releasedAt[it]?.plus(quarantine)?.isAfter(now) != true }
                ?: free.minByOrNull { releasedAt.getValue(it) }
                ?: error("no free pod address in $prefix.0/24")
        taken += host
        releasedAt -= host
        return "$prefix.$host"
    }

    /** Takes [ip] if it is in range and free (a pod keeps its address across agent restarts); false otherwise. */
    @Synchronized
    fun claim(ip: String): Boolean {
        val host = hostPart(ip) ?: return false
        return taken.add(host).also { if (it) releasedAt -= host }
    }

    @Synchronized
    fun release(ip: String) {
        val host = hostPart(ip) ?: return
        if (taken.remove(host)) releasedAt[host] = clock()
    }

    private fun hostPart(ip: String): Int? {
        if (!ip.startsWith("$prefix.")) return null
        return ip.removePrefix("$prefix.").toIntOrNull()?.takeIf { it in FIRST..LAST }
    }

    companion object {
        /**
         * Longer than any neighbour entry can still hold the old pod's MAC as valid: REACHABLE for
         * up to 45 s unchecked (1.5 x base_reachable_time), then 5 s of delay and 3 probes.
         */
        val QUARANTINE: Duration = Duration.ofSeconds(60)

        private const val GATEWAY = 1
        private const val FIRST = 2
        private const val LAST = 254
    }
}
