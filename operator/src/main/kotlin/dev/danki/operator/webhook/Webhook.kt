package dev.danki.operator.webhook

import dev.danki.operator.config.WebhookSettings
import dev.danki.operator.kube.Caches
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.client.KubernetesClient

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
) {
    private val keys = ServingKeys()
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
        WebhookServer(settings.port, keys, PodAdmission(metrics, lookup, client.kubernetesSerialization, aot))
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
    fun ready(): Boolean = keys.loaded() && warmup.done

    fun stop() {
        server.stop()
        lookup.close()
        rotation.stop()
    }
}
