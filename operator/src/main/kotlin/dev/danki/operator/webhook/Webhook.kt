package dev.danki.operator.webhook

import dev.danki.operator.config.WebhookSettings
import dev.danki.operator.kube.Caches
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.client.KubernetesClient
import org.slf4j.LoggerFactory
import java.time.Duration

/**
 * The admission webhook's parts for one replica: its HTTPS server, its certificates (danki's own, or
 * cert-manager's mounted ones) and their rotation. Every replica serves; only the leader warms.
 */
class Webhook(
    settings: WebhookSettings,
    client: KubernetesClient,
    caches: Caches,
    metrics: WarmupMetrics,
    /** danki's image (OperatorConfig.runnerImage): it checks the AOT cache in each pod given one. */
    runnerImage: String? = null,
    /** This replica's pod (OperatorConfig.identity): what [drain] waits for the Service to drop. */
    private val podName: String = "",
    /** The CPU boost from admission; null without `cpuBoost.enabled`. */
    boost: BoostAdmission? = null,
) {
    private val log = LoggerFactory.getLogger(Webhook::class.java)
    private val keys = ServingKeys()

    /** The webhook Service's endpoints: whether the API server can reach the webhook, and this replica. */
    val endpoints = WebhookEndpoints(client, settings.namespace, settings.serviceName)

    @Volatile private var draining = false

    @Volatile private var drained = false
    private val lookup =
        OptInLookup(
            OptInReads.cache(caches),
            OptInReads.api(client),
            metrics,
            namespaceOptIn = caches.namespaces != null,
            budget = settings.readBudget,
        )
    private val aot =
        caches.aotCaches?.let { cache ->
            val claims = checkNotNull(caches.aotClaims) { "the AOT caches come with their claims" }
            runnerImage?.let { image ->
                // unbound until JOSDK creates the informers: no cache yet, so a cold start
                AotAdmission(image, cache::find, claims::find)
            }
        }
    val server =
        WebhookServer(settings.port, keys, PodAdmission(metrics, lookup, client.kubernetesSerialization, aot, boost))
    private val warmup = WebhookWarmup({ server.port }, keys, settings.namespace)
    private val rotation =
        CertificateRotation(
            settings.certDir?.let { MountedCertificates(it, keys)::check }
                ?: OwnCertificates(client, settings, keys)::check,
            keys,
            settings.checkEvery,
        )

    fun start() {
        rotation.start()
        server.start()
        warmup.start()
    }

    /**
     * Ready to admit pods: a certificate is loaded and the admission path is warm (the caches are the
     * operator's readiness already).
     */
    fun ready(): Boolean = !draining && keys.loaded() && warmup.done

    /**
     * This replica is going: it turns unready (so its readiness probe takes it out of the Service) and
     * keeps admitting pods until the Service no longer routes to it, at most [limit]. A port closed
     * while the API server still sends reviews to it would refuse them, and the API server, failing
     * open, would admit those pods without the gate. Once drained, later calls return at once.
     */
    fun drain(limit: Duration) {
        if (drained) return
        draining = true
        val started = System.nanoTime()
        val left = WebhookDrain({ endpoints.routesTo(podName) }).await(limit)
        drained = true
        log
            .atInfo()
            .addKeyValue("pod", podName)
            .addKeyValue("millis", Duration.ofNanos(System.nanoTime() - started).toMillis())
            .addKeyValue("leftTheService", left)
            .log("webhook drained")
    }

    fun stop() {
        server.stop()
        lookup.close()
        rotation.stop()
    }
}
