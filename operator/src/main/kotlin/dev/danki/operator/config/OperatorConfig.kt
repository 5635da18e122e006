package dev.danki.operator.config

import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.UngatedPods

/** Operator-wide settings, read once from the environment at start-up by [ConfigLoader]. */
data class OperatorConfig(
    /** Namespaces to watch; empty means every namespace. */
    val watchNamespaces: List<String> = emptyList(),
    /** How many warm-ups run at once; pods beyond it wait in the queue (WarmupRun `Pending`). */
    val concurrency: Int = DEFAULT_CONCURRENCY,
    /** Failure policy for Deployments that do not set `danki.dev/failure-policy`. */
    val defaultFailurePolicy: FailurePolicy = FailurePolicy.OPEN,
    /** Port serving `/metrics`, `/healthz` and `/readyz`. */
    val httpPort: Int = DEFAULT_HTTP_PORT,
    /** Whether to take a Lease before acting; off only for a single local replica. */
    val leaderElection: Boolean = true,
    /** Name of the `coordination.k8s.io` Lease. */
    val leaseName: String = DEFAULT_LEASE_NAME,
    /** Namespace of the Lease. */
    val leaseNamespace: String = "default",
    /** Leader identity (the pod name in-cluster). */
    val identity: String = "danki",
    /** Path or name of the k6 binary. */
    val k6Binary: String = "k6",
    /** Path of the warm-up script. */
    val k6Script: String = "k6-scripts/warmup.js",
    /** Log output format. */
    val logFormat: LogFormat = LogFormat.JSON,
    /** Share of failed requests (5xx or no answer) above which a k6 attempt counts as failed. */
    val maxErrorRatio: Double = DEFAULT_MAX_ERROR_RATIO,
    /** How many reconcile workers drain the work queue (they never block on k6). */
    val reconcileWorkers: Int = DEFAULT_RECONCILE_WORKERS,
    /** Capacity of the warm-up queue; beyond it pods are retried later. */
    val queueCapacity: Int = DEFAULT_QUEUE_CAPACITY,
    /** Share of the warm-up slots one Deployment may hold at once (at least one slot). */
    val deploymentShare: Double = DEFAULT_DEPLOYMENT_SHARE,
    /** Share of the warm-up slots one namespace may hold at once (at least one slot). */
    val namespaceShare: Double = DEFAULT_NAMESPACE_SHARE,
    /** Warm-ups of pods on one node at once (they compete for its CPU); null: from each node's CPU. */
    val nodeConcurrency: Int? = null,
    /** Image of the runner pods that run custom k6 flows; null: no runner pods, custom scripts refused. */
    val runnerImage: String? = null,
    /** Runner pods at once (they are scheduled like any pod, so the cluster bounds them, not the operator). */
    val runnerConcurrency: Int = DEFAULT_RUNNER_CONCURRENCY,
    /** Resource requests and limits of a runner pod's container, as Kubernetes JSON; null: the defaults. */
    val runnerResources: String? = null,
    /** Whether pods on the node's network may be warmed at the node's address (off: refused). */
    val allowHostNetwork: Boolean = false,
    /** Warm-up results kept per Deployment in its WarmupHistory after their pods are gone; 0: none kept. */
    val historyRetention: Int = DEFAULT_HISTORY_RETENTION,
    /** How the gate reaches new pods; the chart defaults to the webhook, a bare process to the template. */
    val gateInjection: GateInjection = GateInjection.TEMPLATE,
    /** What to do about a pod admitted without the gate, for Deployments without `danki.dev/ungated-pods`. */
    val ungatedPods: UngatedPods = UngatedPods.REPLACE,
    /** The admission webhook's settings; set exactly when [gateInjection] is `WEBHOOK`. */
    val webhook: WebhookSettings? = null,
    /** Whether pods may be resized for their warm-up (`danki.dev/warmup-cpu`; chart value `cpuBoost.enabled`). */
    val cpuBoost: Boolean = false,
    /** JDK AOT caches (`aotCache.enabled`); null: off. */
    val aot: AotSettings? = null,
) {
    /** Output format of the logs. */
    enum class LogFormat { JSON, TEXT }

    companion object {
        const val DEFAULT_CONCURRENCY = 16
        const val DEFAULT_HTTP_PORT = 8080
        const val DEFAULT_LEASE_NAME = "danki-operator"

        /** 5 %: a JVM that is still warming answers slowly, not with errors; more is a broken target. */
        const val DEFAULT_MAX_ERROR_RATIO = 0.05

        /**
         * They never block on k6 but do wait on the API server (a decided pod is three or four writes).
         * A scale-up is a burst: with 4, the bad-input suite's 60 pods waited up to 12-17 s for their
         * decisions on the real kubelet; with 2, 10.7 s and with 6, 8 s on the node agent. Threads that
         * wait on I/O are cheap; the API server takes 16 writes at once without notice.
         */
        const val DEFAULT_RECONCILE_WORKERS = 16
        const val DEFAULT_QUEUE_CAPACITY = 10_000

        /**
         * Half the slots per Deployment: a scale-up of one Deployment still runs many warm-ups at
         * once, and the other half always stays free for the rest of the cluster.
         */
        const val DEFAULT_DEPLOYMENT_SHARE = 0.5
        const val DEFAULT_NAMESPACE_SHARE = 0.75
        const val DEFAULT_RUNNER_CONCURRENCY = 32

        /** Two or three scale-ups of a Deployment of ten: enough to take a lead time from, small to read. */
        const val DEFAULT_HISTORY_RETENTION = 20
        const val MAX_HISTORY_RETENTION = 500
    }
}
