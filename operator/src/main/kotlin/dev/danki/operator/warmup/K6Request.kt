package dev.danki.operator.warmup

import java.time.Instant

/** Everything one k6 attempt needs: where to send, what, and how long it may take. */
data class K6Request(
    val runName: String,
    val baseUrl: String,
    val plan: WarmupPlan,
    /** Hard stop: k6 is killed at this moment, and told to stop itself a little before. */
    val deadline: Instant,
    val maxErrorRatio: Double,
    /** The pod's JVM metrics page when the plan names one; k6 scrapes it for the JIT stop rule. */
    val jitMetricsUrl: String? = null,
    /** The pod being warmed; a runner pod is created beside it and may reach only it. */
    val target: TargetPod? = null,
    /** The phases this attempt sends (k6's PHASES): all three, unless a CPU boost splits the warm-up. */
    val phases: Set<WarmupPhase> = WarmupPhase.ALL,
)

/** The phases of a warm-up, in the order they run, by the names the k6 scripts give them. */
enum class WarmupPhase(
    val key: String,
) {
    COLD("cold"),
    WARMUP("warmup"),
    WARM("warm"),
    ;

    companion object {
        val ALL: Set<WarmupPhase> = entries.toSet()

        /** PHASES for k6: the keys, in order. */
        fun listOf(phases: Set<WarmupPhase>) = entries.filter { it in phases }.joinToString(",") { it.key }
    }
}

/** The pod a warm-up is for: where it is, and the one address traffic may go to. */
data class TargetPod(
    val namespace: String,
    val name: String,
    val uid: String,
    val ip: String,
)
