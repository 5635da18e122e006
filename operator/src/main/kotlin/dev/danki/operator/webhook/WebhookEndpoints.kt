package dev.danki.operator.webhook

import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant

/**
 * Whether the API server can reach danki's webhook now: its Service has a ready endpoint. A pod evicted
 * to be recreated with the gate is worth evicting only then. Right after danki comes back, the leader
 * acts before its replicas have passed their readiness probes and joined the Service, and a replacement
 * created then is admitted ungated again ("no endpoints available for service").
 */
class WebhookEndpoints(
    private val client: KubernetesClient,
    private val namespace: String,
    private val service: String,
    private val now: () -> Instant = Instant::now,
) {
    private val log = LoggerFactory.getLogger(WebhookEndpoints::class.java)

    @Volatile private var last: Pair<Instant, Boolean>? = null

    /** True when an EndpointSlice of the webhook Service lists a ready endpoint (read at most every [FRESH]). */
    fun ready(): Boolean {
        last?.takeIf { (at, _) -> Duration.between(at, now()) < FRESH }?.let { return it.second }
        val ready =
            try {
                client
                    .discovery()
                    .v1()
                    .endpointSlices()
                    .inNamespace(namespace)
                    .withLabel(SERVICE_NAME_LABEL, service)
                    .list()
                    .items
                    // an unset ready condition means ready, as EndpointSlice consumers read it
                    .any { slice -> slice.endpoints.orEmpty().any { it.conditions?.ready != false } }
            } catch (e: KubernetesClientException) {
                log
                    .atWarn()
                    .addKeyValue("service", "$namespace/$service")
                    .setCause(e)
                    .log("cannot tell whether the webhook is reachable; no ungated pod is replaced meanwhile")
                false
            }
        last = now() to ready
        return ready
    }

    private companion object {
        const val SERVICE_NAME_LABEL = "kubernetes.io/service-name"
        val FRESH: Duration = Duration.ofSeconds(2)
    }
}
