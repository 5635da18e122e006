package dev.danki.operator.metrics

import dev.danki.operator.BuildInfo
import dev.danki.operator.warmup.K6Summary
import io.prometheus.metrics.core.metrics.Counter
import io.prometheus.metrics.core.metrics.Gauge
import io.prometheus.metrics.core.metrics.GaugeWithCallback
import io.prometheus.metrics.core.metrics.Histogram
import io.prometheus.metrics.core.metrics.Info
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics
import io.prometheus.metrics.model.registry.PrometheusRegistry

/**
 * Every danki metric, defined here and nowhere else. Labels are namespace and Deployment at most,
 * never a pod name: pods come and go, and a label per pod would grow the series without bound.
 */
class WarmupMetrics(
    val registry: PrometheusRegistry = PrometheusRegistry(),
) {
    private val runs =
        Counter
            .builder()
            .name("danki_warmup_runs_total")
            .help("Warm-ups finished, by result (succeeded, failed_open, failed_closed).")
            .labelNames("namespace", "deployment", "result")
            .register(registry)

    private val failures =
        Counter
            .builder()
            .name("danki_warmup_failures_total")
            .help("Failed warm-ups by WarmupRun reason (Timeout, TooManyErrors, TargetRefused, K6Failed, ...).")
            .labelNames("namespace", "deployment", "reason")
            .register(registry)

    private val duration =
        Histogram
            .builder()
            .name("danki_warmup_duration_seconds")
            .help("Wall time of a warm-up, from its start to the gate decision.")
            .classicOnly()
            .apply {
                // a one-time copy of ten doubles at start-up
                @Suppress("SpreadOperator")
                classicUpperBounds(*DURATION_BUCKETS)
            }.labelNames("namespace", "deployment")
            .register(registry)

    private val latency =
        Gauge
            .builder()
            .name("danki_warmup_latency_seconds")
            .help("Latency percentiles of the last warm-up of a Deployment, per phase (cold, warm).")
            .labelNames("namespace", "deployment", "phase", "quantile")
            .register(registry)

    private val requests =
        Counter
            .builder()
            .name("danki_warmup_requests_total")
            .help("Requests k6 sent to warm pods, by phase (cold, warmup, warm).")
            .labelNames("namespace", "deployment", "phase")
            .register(registry)

    private val stops =
        Counter
            .builder()
            .name("danki_warmup_stops_total")
            .help(
                "Warm-ups that reached their warm pass, by why the warm-up phase stopped " +
                    "(Converged, JitSettled, TargetReached, MaxRequests, Timeout).",
            ).labelNames("namespace", "deployment", "reason")
            .register(registry)

    private val inProgress =
        Gauge
            .builder()
            .name("danki_warmups_in_progress")
            .help("Warm-ups running now.")
            .register(registry)

    private val queued =
        Gauge
            .builder()
            .name("danki_warmups_queued")
            .help(
                "Warm-ups waiting for a free slot in the pool, including paused ones waiting for theirs back " +
                    "and those a full queue turned away for now.",
            ).register(registry)

    private val gatePatch =
        Histogram
            .builder()
            .name("danki_gate_patch_duration_seconds")
            .help("Latency of the operator's pods/status patches of the danki.dev/warmed condition.")
            .classicOnly()
            .apply {
                // a one-time copy of a dozen doubles at start-up
                @Suppress("SpreadOperator")
                classicUpperBounds(*PATCH_BUCKETS)
            }.register(registry)

    private val admissions =
        Counter
            .builder()
            .name("danki_webhook_admissions_total")
            .help("Pods the admission webhook answered, by result (gated, unchanged).")
            .labelNames("result")
            .register(registry)

    private val admissionTime =
        Histogram
            .builder()
            .name("danki_webhook_admission_duration_seconds")
            .help(
                "Time the webhook took to answer a pod's admission, by how it found the pod's Deployment " +
                    "(cache, api: read past the cache, failed: the read failed and the pod was let through).",
            ).classicOnly()
            .apply {
                // a one-time copy of a dozen doubles at start-up
                @Suppress("SpreadOperator")
                classicUpperBounds(*PATCH_BUCKETS)
            }.labelNames("lookup")
            .register(registry)

    private val apiReads =
        Counter
            .builder()
            .name("danki_webhook_api_reads_total")
            .help(
                "Reads past the cache the webhook made for a pod whose Deployment the cache did not show opted " +
                    "in, by result (found, not_found, failed: the pod was admitted without the gate).",
            ).labelNames("result")
            .register(registry)

    private val notGated =
        Counter
            .builder()
            .name("danki_webhook_ungated_pods_total")
            .help(
                "Pods of opted-in Deployments created after the opt-in without the gate: admitted while the " +
                    "webhook was unreachable or could not read their Deployment, so they joined their Service " +
                    "unwarmed.",
            ).labelNames("namespace", "deployment")
            .register(registry)

    private val replaced =
        Counter
            .builder()
            .name("danki_webhook_ungated_pods_replaced_total")
            .help(
                "Ungated pods danki evicted (danki.dev/ungated-pods: replace) so that their ReplicaSet " +
                    "recreates them with the gate.",
            ).labelNames("namespace", "deployment")
            .register(registry)

    init {
        // one series, always 1: dashboards join on it to tell which version a replica runs
        Info
            .builder()
            .name("danki_build_info")
            .help("danki's version (the chart's, the images' and the CLI's), as the version label.")
            .labelNames("version")
            .register(registry)
            .setLabelValues(BuildInfo.version)
    }

    private val leader =
        Gauge
            .builder()
            .name("danki_leader")
            .help("1 while this replica holds the leader Lease and reconciles, else 0.")
            .register(registry)

    /** Adds the JVM's own metrics (heap, GC, threads, CPU). */
    fun withJvmMetrics(): WarmupMetrics = apply { JvmMetrics.builder().register(registry) }

    fun runFinished(namespace: String, deployment: String, result: String, seconds: Double?) {
        runs.labelValues(namespace, deployment, result).inc()
        if (seconds != null) duration.labelValues(namespace, deployment).observe(seconds)
    }

    /** [reason] is one of Keys.RunConditions' reasons: a short, fixed set, so it is safe as a label. */
    fun runFailed(namespace: String, deployment: String, reason: String) =
        failures.labelValues(namespace, deployment, reason).inc()

    fun resultMeasured(namespace: String, deployment: String, summary: K6Summary) {
        for ((phase, result) in listOf("cold" to summary.cold, "warm" to summary.warm)) {
            result.latency?.asMap()?.forEach { (name, millis) ->
                latency.labelValues(namespace, deployment, phase, QUANTILES.getValue(name)).set(millis / MILLIS)
            }
        }
        for ((phase, result) in listOf("cold" to summary.cold, "warmup" to summary.warmup, "warm" to summary.warm)) {
            requests.labelValues(namespace, deployment, phase).inc(result.requests.toDouble())
        }
        stops.labelValues(namespace, deployment, summary.stopReason.name).inc()
    }

    /**
     * Drops a Deployment's series. Opted out ([deleted] false): its latency gauges, which would describe
     * warm-ups it no longer has. Deleted: every series, counters included, so that the registry does not
     * grow with every Deployment the cluster ever had; one created again under the same name starts its
     * counters from zero, which Prometheus' rate() and increase() read as a reset.
     */
    fun deploymentGone(namespace: String, deployment: String, deleted: Boolean) {
        if (!deleted) {
            for (phase in listOf("cold", "warm")) {
                QUANTILES.values.forEach { latency.remove(namespace, deployment, phase, it) }
            }
            return
        }
        // every per-Deployment family's first two labels are namespace and deployment
        for (family in listOf(runs, failures, duration, latency, requests, stops, notGated, replaced)) {
            family.removeIf { labels -> labels[0] == namespace && labels[1] == deployment }
        }
    }

    fun gatePatched(seconds: Double) = gatePatch.observe(seconds)

    fun podAdmitted(result: String) = admissions.labelValues(result).inc()

    /** [lookup] is one of the LOOKUP_ values: a fixed set. */
    fun admissionAnswered(lookup: String, seconds: Double) = admissionTime.labelValues(lookup).observe(seconds)

    /** [result] is one of the READ_ values: a fixed set. */
    fun webhookRead(result: String) = apiReads.labelValues(result).inc()

    fun podNotGated(namespace: String, deployment: String) = notGated.labelValues(namespace, deployment).inc()

    fun ungatedPodReplaced(namespace: String, deployment: String) = replaced.labelValues(namespace, deployment).inc()

    fun leading(leads: Boolean) = leader.set(if (leads) 1.0 else 0.0)

    /**
     * The go/no-go gauges, read from [gated] and [overdue] at each scrape (both per Deployment): pods
     * by state, and pods held past their run's deadline. Only the leader reports them, so a sum over
     * replicas counts each pod once.
     */
    fun watchGatedPods(gated: () -> Map<GatedPods.Key, Int>, overdue: () -> Map<GatedPods.Key, Int>) {
        GaugeWithCallback
            .builder()
            .name("danki_gated_pods")
            .help(
                "Pods of opted-in Deployments by warm-up state (pending, queued, warming, warmed, failed); " +
                    "leader only.",
            ).labelNames("namespace", "deployment", "state")
            .callback { cb -> gated().forEach { (k, n) -> cb.call(n.toDouble(), k.namespace, k.deployment, k.state) } }
            .register(registry)
        GaugeWithCallback
            .builder()
            .name("danki_gated_pods_overdue")
            .help(
                "Pods still queued or warming after their run's deadline (held longer than their timeout); " +
                    "leader only.",
            ).labelNames("namespace", "deployment")
            .callback { cb -> overdue().forEach { (k, n) -> cb.call(n.toDouble(), k.namespace, k.deployment) } }
            .register(registry)
    }

    fun poolChanged(running: Int, waiting: Int) {
        inProgress.set(running.toDouble())
        queued.set(waiting.toDouble())
    }

    companion object {
        private const val MILLIS = 1_000.0
        private val QUANTILES = mapOf("p25" to "0.25", "p50" to "0.5", "p75" to "0.75", "p90" to "0.9", "p95" to "0.95")

        /** Warm-ups take from a few seconds (fast convergence) to the 5 minute default timeout. */
        private val DURATION_BUCKETS = doubleArrayOf(1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)

        /** A patch is a few milliseconds on a healthy API server; seconds mean it is overloaded. */
        private val PATCH_BUCKETS =
            doubleArrayOf(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

        /** Result label values. */
        const val SUCCEEDED = "succeeded"
        const val FAILED_OPEN = "failed_open"
        const val FAILED_CLOSED = "failed_closed"

        /** Admission result label values. */
        const val ADMITTED_GATED = "gated"
        const val ADMITTED_UNCHANGED = "unchanged"

        /** How the webhook found a pod's Deployment. */
        const val LOOKUP_CACHE = "cache"
        const val LOOKUP_API = "api"
        const val LOOKUP_FAILED = "failed"

        /** Results of the webhook's reads past the cache. */
        const val READ_FOUND = "found"
        const val READ_NOT_FOUND = "not_found"
        const val READ_FAILED = "failed"
    }
}
