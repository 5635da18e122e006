package dev.danki.operator.warmup

import dev.danki.operator.boost.BoostAmount
import java.time.Duration

/** How to warm the pods of one Deployment, parsed from its `danki.dev/` annotations by [PlanParser]. */
data class WarmupPlan(
    /** Container port to send requests to. */
    val port: Int,
    /** Requests, sent round-robin. */
    val requests: List<RequestSpec> = listOf(RequestSpec("GET", "/")),
    /** Arrival rate (requests/s) of the cold and warm passes. */
    val rate: Double = DEFAULT_RATE,
    /** Requests in each of the cold and warm passes. */
    val passRequests: Int = DEFAULT_PASS_REQUESTS,
    /** Where the cold figures come from: the warm-up's first answers, or an open pass of their own. */
    val coldPass: ColdPass = ColdPass.WARMUP,
    /** Low-rate requests after the warm-up, before the warm pass: its queued compiles finish meanwhile. */
    val drain: Duration = DEFAULT_DRAIN,
    /** Ceiling on the warm-up phase's requests/s; the pod's own speed sets the pace below it. */
    val warmupRate: Double = DEFAULT_WARMUP_RATE,
    /** Warm-up requests in flight at once: the closed loop sends the next as soon as one answers. */
    val warmupConcurrency: Int = DEFAULT_WARMUP_CONCURRENCY,
    /** Warm-up requests sent before any stop rule is asked: a safety minimum, not the stop. */
    val minWarmupRequests: Int = DEFAULT_MIN_WARMUP_REQUESTS,
    val maxWarmupRequests: Int = DEFAULT_MAX_WARMUP_REQUESTS,
    /** The pod's JVM metrics page; when set, the warm-up stops once the JIT has nothing left to compile. */
    val jitMetrics: JitMetrics? = null,
    /** Stop warming once a window's P95 is at or under this; null = only convergence stops it. */
    val targetP95: Duration? = null,
    /** Budget from ContainersReady to a decision, retries included. */
    val timeout: Duration = DEFAULT_TIMEOUT,
    val failurePolicy: FailurePolicy = FailurePolicy.OPEN,
    val headers: Map<String, String> = emptyMap(),
    /** Whether a 3xx answer counts as a success (it is never followed either way). */
    val acceptRedirects: Boolean = false,
    /** A custom flow run in a runner pod instead of [requests]; null for the built-in plan. */
    val script: ScriptRef? = null,
    /** The warmed container's CPU while its pod is gated; null: the pod's own. */
    val warmupCpu: BoostAmount? = null,
) {
    companion object {
        /** The published exam-server protocol: 20 requests/s, 100 requests per pass. */
        const val DEFAULT_RATE = 20.0
        const val DEFAULT_PASS_REQUESTS = 100

        /**
         * Once the warm-up's load stops, a JVM's compiler threads finish what it queued within half a second
         * (the cluster's JIT traces, bench/results/stop-rule.md): a second covers it.
         */
        val DEFAULT_DRAIN: Duration = Duration.ofSeconds(1)

        /**
         * The warm-up feeds the JIT as fast as the pod answers, with a ceiling so that a very fast pod's
         * warm-up stays cheap; see bench/results/stop-rule-loopback.md for the measurements behind these.
         */
        const val DEFAULT_WARMUP_RATE = 1_000.0
        const val DEFAULT_WARMUP_CONCURRENCY = 4

        /**
         * The throughput rule decides the stop (k6-scripts/lib/convergence.js), and its first verdict comes
         * after 1,200 answers anyway: the floor only keeps a pod that answers suspiciously fast at once from
         * being judged on nothing. bench/results/stop-rule.md has the cluster sweep of 300 to 2,000.
         */
        const val DEFAULT_MIN_WARMUP_REQUESTS = 300
        const val DEFAULT_MAX_WARMUP_REQUESTS = 10_000
        val DEFAULT_TIMEOUT: Duration = Duration.ofMinutes(5)
    }
}

/** One request a warm-up sends over and over: `METHOD /path [JSON body]`. */
data class RequestSpec(
    val method: String,
    val path: String,
    val body: String? = null,
)

/** Where a pod's Prometheus page is: a container port and a path, e.g. `8080` and `/metrics`. */
data class JitMetrics(
    val port: Int,
    val path: String = DEFAULT_PATH,
) {
    companion object {
        const val DEFAULT_PATH = "/metrics"
    }
}

/**
 * A custom k6 flow: a key of a ConfigMap in the Deployment's own namespace, run in a runner pod
 * with the whole ConfigMap beside it, and optionally a Secret mounted for the flow alone.
 */
data class ScriptRef(
    val configMap: String,
    val key: String = DEFAULT_KEY,
    val secret: String? = null,
) {
    companion object {
        const val DEFAULT_KEY = "flow.js"
    }
}

/** Where a warm-up's cold figures come from (`danki.dev/cold-pass`). */
enum class ColdPass(
    val value: String,
) {
    /**
     * The warm-up's first requests, with its concurrency in flight: no time of their own on the pod's way
     * to Ready. At the pod's own pace, so they show its cold service time, not the queue that users
     * arriving at a fixed rate would build on a pod slower than their rate. The warm pass is then taken
     * alike, a closed pass with as many in flight: an open one on a busy node could queue above the cold.
     */
    WARMUP("warmup"),

    /**
     * A pass of its own before the warm-up, sent at the plan's rate whatever the answers take, as users
     * arrive; the warm pass alike.
     */
    OPEN("open"),
    ;

    companion object {
        fun parse(raw: String): ColdPass? = entries.firstOrNull { it.value == raw.trim().lowercase() }
    }
}

/** What happens to a pod's gate when its warm-up fails for good. */
enum class FailurePolicy(
    val value: String,
) {
    /** Release the pod anyway (gate True, reason `WarmupFailedOpen`): availability over latency. */
    OPEN("open"),

    /** Keep the pod out of its Service (gate False, reason `WarmupFailed`). */
    CLOSED("closed"),
    ;

    companion object {
        fun parse(raw: String): FailurePolicy? = entries.firstOrNull { it.value == raw.trim().lowercase() }

        /** The policy a WarmupRun's spec recorded; open, the default, when it has none or one unknown here. */
        fun recorded(value: String?): FailurePolicy = parse(value ?: "") ?: OPEN
    }
}
