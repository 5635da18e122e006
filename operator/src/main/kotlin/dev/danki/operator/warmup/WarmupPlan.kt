package dev.danki.operator.warmup

import java.time.Duration

/** One request a warm-up sends over and over: `METHOD /path [JSON body]`. */
data class RequestSpec(
    val method: String,
    val path: String,
    val body: String? = null,
)

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
    /** Arrival rate (requests/s) of the warm-up phase. */
    val warmupRate: Double = DEFAULT_WARMUP_RATE,
    /** Upper bound on warm-up requests. */
    val maxWarmupRequests: Int = DEFAULT_MAX_WARMUP_REQUESTS,
    /** Stop warming once a window's P95 is at or under this; null = only convergence stops it. */
    val targetP95: Duration? = null,
    /** Budget from ContainersReady to a decision, retries included. */
    val timeout: Duration = DEFAULT_TIMEOUT,
    /** What happens to the gate when the warm-up fails. */
    val failurePolicy: FailurePolicy = FailurePolicy.OPEN,
    /** Extra request headers. */
    val headers: Map<String, String> = emptyMap(),
) {
    companion object {
        /** The published exam-server protocol: 20 requests/s, 100 requests per pass. */
        const val DEFAULT_RATE = 20.0
        const val DEFAULT_PASS_REQUESTS = 100

        /** Warm-up goes faster than the measured passes: the JIT needs volume, not realism. */
        const val DEFAULT_WARMUP_RATE = 100.0
        const val DEFAULT_MAX_WARMUP_REQUESTS = 5_000
        val DEFAULT_TIMEOUT: Duration = Duration.ofMinutes(5)
    }
}
