package dev.danki.operator.webhook

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant

/**
 * The ready endpoints of danki's webhook Service, as the API server routes admission reviews by them.
 *
 * [ready]: can the API server reach the webhook now? A pod evicted to be recreated with the gate is
 * worth evicting only then. Right after danki comes back, the leader acts before its replicas have
 * passed their readiness probes and joined the Service, and a replacement created then is admitted
 * ungated again ("no endpoints available for service").
 *
 * [routesTo]: does the Service still send reviews to this replica? One that is going (its Lease lost,
 * or SIGTERM) keeps its port open until it does not, or a review sent meanwhile is refused, and the
 * API server, failing open, admits the pod ungated.
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
        val ready = readyEndpoints()?.isNotEmpty() ?: false
        last = now() to ready
        return ready
    }

    /** True while a ready endpoint of the Service is the pod [podName]; null when the API cannot tell. */
    fun routesTo(podName: String): Boolean? = readyEndpoints()?.any { it.targetRef?.name == podName }

    private fun readyEndpoints(): List<Endpoint>? =
        try {
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(namespace)
                .withLabel(SERVICE_NAME_LABEL, service)
                .list()
                .items
                .flatMap { it.endpoints.orEmpty() }
                // an unset ready condition means ready, as EndpointSlice consumers read it
                .filter { it.conditions?.ready != false }
        } catch (e: KubernetesClientException) {
            log
                .atWarn()
                .addKeyValue("service", "$namespace/$service")
                .setCause(e)
                .log("cannot read the webhook Service's endpoints")
            null
        }

    private companion object {
        const val SERVICE_NAME_LABEL = "kubernetes.io/service-name"
        val FRESH: Duration = Duration.ofSeconds(2)
    }
}
