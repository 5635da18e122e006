package dev.danki.operator.warmup

import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.client.KubernetesClient
import org.slf4j.LoggerFactory
import java.math.BigDecimal
import java.math.RoundingMode
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * `DANKI_NODE_CONCURRENCY=auto`: each node's cap from its allocatable CPU, one warm-up per
 * [CORES_PER_WARMUP] cores and at least one, so a 2-core node warms one pod at a time and a 16-core
 * node eight. Why two cores: alone on this project's 2-core bench machine a warm-up kept both cores
 * busy (its JVM's request threads and JIT compiler threads, and k6), and two at once were no faster
 * in all than one after the other, and left the pods colder.
 *
 * A node is read once per [ttl] (a reconcile thread, never the pool's lock); when it cannot be read
 * (no RBAC, gone, no allocatable CPU) the cap is [FALLBACK], the fixed default before `auto`. A read
 * that failed is tried again after [RETRY_AFTER_FAILURE]: one API server hiccup must not pin the
 * fallback for a whole [ttl].
 */
class NodeCpuCaps(
    /** The node's allocatable CPU, or null when it has none; throws when the node cannot be read. */
    private val allocatableCpu: (String) -> Quantity?,
    private val ttl: Duration = DEFAULT_TTL,
    private val clock: Clock = Clock.systemUTC(),
) : NodeCaps {
    private val log = LoggerFactory.getLogger(NodeCpuCaps::class.java)

    private class Known(
        val cap: Int,
        val until: Instant,
    )

    private val known = ConcurrentHashMap<String, Known>()

    override fun of(node: String): Int {
        val now = clock.instant()
        known[node]?.takeIf { it.until.isAfter(now) }?.let { return it.cap }
        val read = read(node)
        if (known.size >= MAX_NODES) known.clear() // a bound, not an eviction policy: nodes are few
        known[node] = read
        return read.cap
    }

    private fun read(node: String): Known =
        try {
            val cpu = allocatableCpu(node)
            if (cpu == null) {
                log
                    .atWarn()
                    .addKeyValue("node", node)
                    .addKeyValue("cap", FALLBACK)
                    .log("node has no allocatable CPU")
            }
            Known(cpu?.let(::capFor) ?: FALLBACK, clock.instant().plus(ttl))
        } catch (
            @Suppress("TooGenericExceptionCaught") e: RuntimeException,
        ) {
            // the cap only paces warm-ups: a node that cannot be read must not stop them
            log
                .atWarn()
                .addKeyValue("node", node)
                .addKeyValue("cap", FALLBACK)
                .setCause(e)
                .log("could not read the node's allocatable CPU")
            Known(FALLBACK, clock.instant().plus(minOf(ttl, RETRY_AFTER_FAILURE)))
        }

    companion object {
        const val CORES_PER_WARMUP = 2
        const val FALLBACK = 2
        private const val MAX_NODES = 10_000
        val DEFAULT_TTL: Duration = Duration.ofMinutes(10)
        val RETRY_AFTER_FAILURE: Duration = Duration.ofSeconds(30)

        /** Caps from the nodes [client] reads (a GET by name; a node that is gone reads as no CPU). */
        fun reading(client: KubernetesClient) =
            NodeCpuCaps({ node ->
                client
                    .nodes()
                    .withName(node)
                    .get()
                    ?.status
                    ?.allocatable
                    ?.get("cpu")
            })

        /** One warm-up per [CORES_PER_WARMUP] whole cores of [cpu], at least one. */
        fun capFor(cpu: Quantity): Int {
            val cores = Quantity.getAmountInBytes(cpu) // a plain number in the quantity's base unit: cores
            return cores
                .divide(BigDecimal(CORES_PER_WARMUP), 0, RoundingMode.FLOOR)
                .toInt()
                .coerceAtLeast(1)
        }
    }
}

/**
 * How many warm-ups may run at once on one node. A warm-up drives its pod as fast as it answers, so
 * pods warmed on one node compete for its CPU, and with the JVMs still starting there: measured on
 * one 2-core node, eight at once took minutes each, and a 1 -> 9 scale-up came Ready as soon and
 * twice as warm one at a time as two at a time (bench/results/warmup-node-agent-notes.md).
 */
fun interface NodeCaps {
    /** The cap of [node], by name; called off the pool's lock, so it may read the API server. */
    fun of(node: String): Int

    companion object {
        /** The same cap on every node (`DANKI_NODE_CONCURRENCY=N`). */
        fun fixed(cap: Int) = NodeCaps { cap }
    }
}
