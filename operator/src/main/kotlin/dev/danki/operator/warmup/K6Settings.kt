package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.ObjectMapper
import java.time.Duration

/** The warm-up settings both of danki's k6 scripts read (k6-scripts/lib/settings.js), from a request. */
object K6Settings {
    private val json = ObjectMapper()
    private const val MILLIS = 1_000.0

    /** [timeBudget]: how long k6 may run, so that it ends (and reports) before the request's deadline. */
    fun of(request: K6Request, timeBudget: Duration): Map<String, String> {
        val plan = request.plan
        return mapOf(
            "BASE_URL" to request.baseUrl,
            "RATE" to plan.rate.toString(),
            "REQUESTS" to plan.passRequests.toString(),
            "WARMUP_RATE" to plan.warmupRate.toString(),
            "WARMUP_CONCURRENCY" to plan.warmupConcurrency.toString(),
            "MIN_WARMUP_REQUESTS" to plan.minWarmupRequests.toString(),
            "MAX_WARMUP_REQUESTS" to plan.maxWarmupRequests.toString(),
            "JIT_METRICS_URL" to (request.jitMetricsUrl ?: ""),
            "TARGET_P95_MS" to (plan.targetP95?.toMillis()?.toString() ?: ""),
            "TIME_BUDGET_S" to (timeBudget.toMillis() / MILLIS).toString(),
            "MAX_ERROR_RATIO" to request.maxErrorRatio.toString(),
            "HEADERS" to json.writeValueAsString(plan.headers),
            "PHASES" to WarmupPhase.listOf(request.phases),
        )
    }
}
