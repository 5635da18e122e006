package dev.danki.cluster.network

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.logging.infoWith
import org.slf4j.LoggerFactory

/** One pod's network: a namespace, a veth pair (eth0 inside, the host end on the bridge) and an address. */
data class PodNetworkHandle(
    val netns: String,
    val hostVeth: String,
    val ip: String,
)

/**
 * Creates and removes pod network namespaces with `ip`. Names carry the instance prefix, so the
 * agent can find what it left behind after a crash without touching other instances.
 */
class PodNetwork(
    private val config: AgentConfig,
) {
    private val log = LoggerFactory.getLogger(PodNetwork::class.java)

    /** Names for a pod with [uid]: the first 8 hex digits of the uid keep the veth name within 15 bytes. */
    fun namesFor(uid: String): Pair<String, String> {
        val short = uid.replace("-", "").take(SHORT_UID)
        return "${config.netnsPrefix}$short" to "${config.vethPrefix}$short"
    }

    /** Sets up the namespace for the pod [uid] with address [ip]; removes any half-made leftovers first. */
    fun create(uid: String, ip: String): PodNetworkHandle {
        val (netns, veth) = namesFor(uid)
        remove(netns, veth, ip)
        try {
            HostCommand.run("ip", "netns", "add", netns)
            HostCommand.run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns)
            HostCommand.run("ip", "link", "set", veth, "master", config.bridge, "up")
            HostCommand.run("ip", "-n", netns, "addr", "add", "$ip/$PREFIX_LENGTH", "dev", "eth0")
            HostCommand.run("ip", "-n", netns, "link", "set", "lo", "up")
            HostCommand.run("ip", "-n", netns, "link", "set", "eth0", "up")
            HostCommand.run("ip", "-n", netns, "route", "add", "default", "via", config.bridgeIp)
        } catch (e: HostCommandException) {
            remove(netns, veth, ip)
            throw e
        }
        announce(netns)
        log.infoWith("pod network created", "netns" to netns, "ip" to ip)
        return PodNetworkHandle(netns, veth, ip)
    }

    /**
     * The address may have been a pod's that was deleted moments ago, and the other pods may still
     * map it to that pod's MAC: a neighbour entry stays REACHABLE for up to 45 s unchecked, and its
     * traffic goes nowhere meanwhile (a reused address took 10 to 48 s to pass its first readiness
     * probe). One datagram to the gateway makes the new pod broadcast an ARP request, and every
     * neighbour that knows its address takes the new MAC from it. (The kernel's own gratuitous ARP,
     * arp_notify, is sent before a veth has carrier and is lost.)
     */
    private fun announce(netns: String) {
        val sent = HostCommand.tryRun("ip", "netns", "exec", netns, "bash", "-c", "echo >/dev/udp/${config.bridgeIp}/9")
        if (sent == null) log.infoWith("pod address not announced", "netns" to netns)
    }

    /**
     * Kills every process still inside [netns], then deletes it and the host veth, and makes the
     * host forget the MAC it had for [ip], which may soon be another pod's. Safe to repeat.
     */
    fun remove(netns: String, veth: String, ip: String?) {
        killEverythingIn(netns)
        HostCommand.tryRun("ip", "netns", "delete", netns)
        HostCommand.tryRun("ip", "link", "delete", veth)
        if (ip != null) HostCommand.tryRun("ip", "neigh", "flush", "to", ip, "dev", config.bridge)
    }

    /** PIDs of processes in [netns] (the whole process tree of a pod, however it forked). */
    fun pidsIn(netns: String): List<Long> =
        HostCommand
            .tryRun("ip", "netns", "pids", netns)
            .orEmpty()
            .lines()
            .mapNotNull { it.trim().toLongOrNull() }

    private fun killEverythingIn(netns: String) {
        pidsIn(netns).forEach { pid -> ProcessHandle.of(pid).ifPresent { it.destroyForcibly() } }
    }

    /**
     * Removes every namespace and veth with this instance's prefix, killing the processes inside:
     * orphans of an earlier run, or what is left when the agent stops. Returns how many.
     */
    fun removeOrphans(): Int {
        val namespaces =
            HostCommand
                .tryRun("ip", "netns", "list")
                .orEmpty()
                .lines()
                .map { it.substringBefore(" ").trim() }
                .filter { it.startsWith(config.netnsPrefix) }
        val veths =
            HostCommand
                .tryRun("ip", "-o", "link", "show")
                .orEmpty()
                .lines()
                .mapNotNull { Regex("""^\d+: ([^:@]+)""").find(it)?.groupValues?.get(1) }
                .filter { it.startsWith(config.vethPrefix) }
        namespaces.forEach { killEverythingIn(it) }
        namespaces.forEach { HostCommand.tryRun("ip", "netns", "delete", it) }
        veths.forEach { HostCommand.tryRun("ip", "link", "delete", it) }
        return namespaces.size + veths.size
    }

    private companion object {
        const val SHORT_UID = 8
        const val PREFIX_LENGTH = 24
    }
}
