package dev.danki.operator.config

import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.UngatedPods
import java.time.Duration

/** Operator-wide settings, read once from the environment at start-up by [ConfigLoader]. */
data class OperatorConfig(
    /** Namespaces to watch; empty means every namespace. */
    val watchNamespaces: List<String> = emptyList(),
    /** How many warm-ups run at once; pods beyond it wait in the queue (WarmupRun `Pending`). */
    val concurrency: Int = 16,
    /** Failure policy for Deployments that do not set `danki.dev/failure-policy`. */
    val defaultFailurePolicy: FailurePolicy = FailurePolicy.OPEN,
    /** Port serving `/metrics`, `/healthz` and `/readyz`. */
    val httpPort: Int = 8080,
    /** Whether to take a Lease before acting; off only for a single local replica. */
    val leaderElection: Boolean = true,
    /** Name of the `coordination.k8s.io` Lease. */
    val leaseName: String = "danki-operator",
    val leaseNamespace: String = "default",
    /** Leader identity (the pod name in-cluster). */
    val identity: String = "danki",
    /** Path or name of the k6 binary. */
    val k6Binary: String = "k6",
    /** Path of the warm-up script. */
    val k6Script: String = "k6-scripts/warmup.js",
    val logFormat: LogFormat = LogFormat.JSON,
    /** Share of failed requests (5xx or no answer) above which a k6 attempt counts as failed. */
    val maxErrorRatio: Double = DEFAULT_MAX_ERROR_RATIO,
    /**
     * How many reconcile workers drain the work queue. They never block on k6 but do wait on the API
     * server (a decided pod is three or four writes). A scale-up is a burst: with 4, the bad-input suite's
     * 60 pods waited up to 12-17 s for their decisions on the real kubelet; with 2, 10.7 s and with 6, 8 s
     * on the node agent. Threads that wait on I/O are cheap; the API server takes 16 writes at once
     * without notice.
     */
    val reconcileWorkers: Int = 16,
    /** Capacity of the warm-up queue; beyond it pods are retried later. */
    val queueCapacity: Int = 10_000,
    /**
     * Share of the warm-up slots one Deployment may hold at once (at least one slot). Half: a scale-up of
     * one Deployment still runs many warm-ups at once, and the other half always stays free for the rest
     * of the cluster.
     */
    val deploymentShare: Double = 0.5,
    /** Share of the warm-up slots one namespace may hold at once (at least one slot). */
    val namespaceShare: Double = 0.75,
    /** Warm-ups of pods on one node at once (they compete for its CPU); null: from each node's CPU. */
    val nodeConcurrency: Int? = null,
    /** Image of the runner pods that run custom k6 flows; null: no runner pods, custom scripts refused. */
    val runnerImage: String? = null,
    /** Runner pods at once (they are scheduled like any pod, so the cluster bounds them, not the operator). */
    val runnerConcurrency: Int = 32,
    /** Resource requests and limits of a runner pod's container, as Kubernetes JSON; null: the defaults. */
    val runnerResources: String? = null,
    /** Whether pods on the node's network may be warmed at the node's address (off: refused). */
    val allowHostNetwork: Boolean = false,
    /**
     * Warm-up results kept per Deployment in its WarmupHistory after their pods are gone; 0: none kept.
     * Twenty: two or three scale-ups of a Deployment of ten, enough to take a lead time from, small to read.
     */
    val historyRetention: Int = 20,
    /** How the gate reaches new pods; the chart defaults to the webhook, a bare process to the template. */
    val gateInjection: GateInjection = GateInjection.TEMPLATE,
    /** What to do about a pod admitted without the gate, for Deployments without `danki.dev/ungated-pods`. */
    val ungatedPods: UngatedPods = UngatedPods.REPLACE,
    /** The admission webhook's settings; set exactly when [gateInjection] is `WEBHOOK`. */
    val webhook: WebhookSettings? = null,
    /** Whether pods may be resized for their warm-up (`danki.dev/warmup-cpu`; chart value `cpuBoost.enabled`). */
    val cpuBoost: Boolean = false,
    /**
     * With [cpuBoost]: Deployments that do not set `danki.dev/warmup-cpu` are boosted by the JVM's size
     * (boost.BoostAmount.JvmSized; chart value `cpuBoost.byDefault`).
     */
    val cpuBoostByDefault: Boolean = false,
    /**
     * With [cpuBoost] in webhook mode: a JVM boosted from admission is told its declared CPU with
     * `-XX:ActiveProcessorCount` (chart value `cpuBoost.activeProcessorCount`).
     */
    val cpuBoostActiveProcessors: Boolean = false,
    /** JDK AOT caches (`aotCache.enabled`); null: off. */
    val aot: AotSettings? = null,
) {
    enum class LogFormat { JSON, TEXT }

    companion object {
        /** 5 %: a JVM that is still warming answers slowly, not with errors; more is a broken target. */
        const val DEFAULT_MAX_ERROR_RATIO = 0.05
    }
}

/** How danki's readiness gate reaches the pods of an opted-in Deployment. */
enum class GateInjection {
    /** A mutating admission webhook adds it to each new pod: nothing rolls, the Deployment is never patched. */
    WEBHOOK,

    /** danki patches the Deployment's pod template: opting in (and out) rolls the Deployment once. */
    TEMPLATE,
}

/** The admission webhook's settings (gate injection `webhook`). */
data class WebhookSettings(
    /** HTTPS port the webhook listens on; the chart's webhook Service targets it. */
    val port: Int = 9443,
    /** Name of the webhook Service: the serving certificate is made out to its DNS names. */
    val serviceName: String,
    /** The operator's own namespace: where the Service and the certificate Secret are. */
    val namespace: String,
    /** The MutatingWebhookConfiguration whose caBundle danki keeps current (own certificates only). */
    val configurationName: String,
    /** The Secret holding danki's own CA and serving certificate; null when [certDir] is used. */
    val secretName: String?,
    /** A directory with `tls.crt` and `tls.key` written by someone else (cert-manager); null: own certificates. */
    val certDir: String?,
    /** Lifetime of a serving certificate; it is renewed once two thirds of it have passed. */
    val certValidity: Duration = DEFAULT_CERT_VALIDITY,
    /** Lifetime of danki's CA; renewed likewise, the previous CA stays in the caBundle meanwhile. */
    val caValidity: Duration = DEFAULT_CA_VALIDITY,
    /** How long the API server waits for the webhook (the webhook configuration's timeoutSeconds). */
    val timeout: Duration = DEFAULT_TIMEOUT,
    /**
     * Take the gate template mode wrote off a Deployment that opts out (`webhook.stripTemplateGates`). Off
     * by default: it needs `patch` on every Deployment danki watches, which webhook mode needs for nothing
     * else; the gate left then gets a Warning Event that says how to take it off.
     */
    val stripTemplateGates: Boolean = false,
) {
    /**
     * How long the webhook may read past its cache for one pod: half of [timeout], so the read, the
     * API server's round trip and TLS stay inside it even on a loaded API server, where a read that
     * takes a few milliseconds otherwise can take a second (seen with 30 Deployments created at once
     * on 2 cores).
     */
    val readBudget: Duration
        get() = timeout.dividedBy(2)

    /**
     * How often the certificates are checked (and reloaded): six looks per lifetime, so that between
     * renewal (at 2/3) and expiry every replica reloads at least once; and at least every minute, so a
     * replica sees a rotation by another within it.
     */
    val checkEvery: Duration
        get() = minOf(Duration.ofMinutes(1), certValidity.dividedBy(CHECKS_PER_LIFETIME))

    private companion object {
        val DEFAULT_CERT_VALIDITY: Duration = Duration.ofDays(90)
        val DEFAULT_CA_VALIDITY: Duration = Duration.ofDays(5 * 365)
        val DEFAULT_TIMEOUT: Duration = Duration.ofSeconds(10)
        const val CHECKS_PER_LIFETIME = 6L
    }
}

/**
 * How danki trains and stores JDK AOT caches (`aotCache.*` in the chart); null in [OperatorConfig] when
 * the feature is off, and then a Deployment's `danki.dev/aot-cache` gets a Warning Event and nothing else.
 * It needs the webhook (caches are given to pods at admission) and the runner image (the containers that
 * seal and check the cache run danki's image, never the tenant's).
 */
data class AotSettings(
    /** Storage class of each Deployment's claim; null: the cluster's default class. */
    val storageClassName: String? = null,
    /** Every node that runs a pod of the Deployment reads the claim, and one pod writes it. */
    val accessModes: List<String> = listOf("ReadWriteMany"),
    val storageSize: String = DEFAULT_SIZE,
    /** From the training pod's creation to its cache sealed; a training past it fails. */
    val trainingTimeout: Duration = DEFAULT_TRAINING_TIMEOUT,
) {
    companion object {
        const val DEFAULT_SIZE = "1Gi"
        private val DEFAULT_TRAINING_TIMEOUT: Duration = Duration.ofMinutes(15)
    }
}
