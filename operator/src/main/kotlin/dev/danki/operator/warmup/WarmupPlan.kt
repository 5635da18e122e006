package dev.danki.operator.warmup

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
    /** Ceiling on the warm-up phase's requests/s; the pod's own speed sets the pace below it. */
    val warmupRate: Double = DEFAULT_WARMUP_RATE,
    /** Warm-up requests in flight at once: the closed loop sends the next as soon as one answers. */
    val warmupConcurrency: Int = DEFAULT_WARMUP_CONCURRENCY,
    /** Warm-up requests sent before any stop rule is asked. */
    val minWarmupRequests: Int = DEFAULT_MIN_WARMUP_REQUESTS,
    /**
     * [minWarmupRequests] for a pod whose JVM started from its AOT cache ([startedFromCache]); the user's
     * own `danki.dev/min-warmup-requests`, when set, holds for every pod.
     */
    val minWarmupRequestsFromCache: Int = DEFAULT_MIN_WARMUP_REQUESTS_FROM_CACHE,
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
    /** CPU limit (millicores) of the warmed container while its pod is gated; null: the pod's own. */
    val warmupCpuMillis: Long? = null,
) {
    /**
     * The plan for a pod whose JVM mapped its AOT cache: its classes are loaded and its hot methods
     * profiled already, so fewer requests come before the stop rules judge it. The rules themselves,
     * and the cap, are unchanged, so the pod still warms until its latency converges.
     */
    fun startedFromCache(): WarmupPlan = copy(minWarmupRequests = minOf(minWarmupRequests, minWarmupRequestsFromCache))

    companion object {
        /** The published exam-server protocol: 20 requests/s, 100 requests per pass. */
        const val DEFAULT_RATE = 20.0
        const val DEFAULT_PASS_REQUESTS = 100

        /**
         * The warm-up feeds the JIT as fast as the pod answers, with a ceiling so that a very fast pod's
         * warm-up stays cheap; see bench/results/stop-rule.md for the measurements behind these defaults.
         */
        const val DEFAULT_WARMUP_RATE = 1_000.0
        const val DEFAULT_WARMUP_CONCURRENCY = 4
        const val DEFAULT_MIN_WARMUP_REQUESTS = 2_000

        /**
         * The floor for a JVM that started from its AOT cache. bench/results/warmup-aot-min-warmup-600.md:
         * at 600, the cache's pods stopped after about 1,000 requests with the same first-100 quality as at
         * 2,000, on both bench targets; JVMs without the cache keep 2,000.
         */
        const val DEFAULT_MIN_WARMUP_REQUESTS_FROM_CACHE = 600
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
