package dev.danki.cluster.net

import io.fabric8.kubernetes.api.model.Service
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice

/** One port of one Service's ClusterIP, and the ready endpoints it leads to (none: refused). */
data class ServicePort(
    /** `namespace/name:port` (the port's name, or its number when unnamed), for the rule's comment. */
    val id: String,
    val clusterIp: String,
    val port: Int,
    val protocol: String,
    val backends: List<Endpoint>,
)

/**
 * What kube-proxy reads, for this cluster: every ClusterIP Service port with the ready endpoints of
 * its EndpointSlices (a slice port answers the Service port of the same name; a gated or unready
 * pod is left out, as kube-proxy leaves it out). The `kubernetes` Service leads to the API server,
 * whose Endpoints nothing maintains here (`--endpoint-reconciler-type=none`).
 */
object ServicePorts {
    private const val SERVICE_NAME_LABEL = "kubernetes.io/service-name"

    fun of(services: List<Service>, slices: List<EndpointSlice>, api: Endpoint): List<ServicePort> {
        val slicesOf = slices.groupBy { "${it.metadata.namespace}/${it.metadata.labels?.get(SERVICE_NAME_LABEL)}" }
        return services
            .filter { it.spec?.clusterIP.let { ip -> ip != null && ip != "None" && ip.isNotEmpty() } }
            .sortedBy { "${it.metadata.namespace}/${it.metadata.name}" }
            .flatMap { service ->
                val key = "${service.metadata.namespace}/${service.metadata.name}"
                service.spec.ports.orEmpty().map { port ->
                    val protocol = port.protocol ?: "TCP"
                    val backends =
                        if (key == "default/kubernetes") {
                            listOf(api)
                        } else {
                            backendsOf(slicesOf[key].orEmpty(), port.name, protocol)
                        }
                    ServicePort("$key:${port.name ?: port.port}", service.spec.clusterIP, port.port, protocol, backends)
                }
            }
    }

    /** Ready IPv4 endpoints of [slices] with their port named [name] (null and "" both mean the unnamed port). */
    private fun backendsOf(slices: List<EndpointSlice>, name: String?, protocol: String): List<Endpoint> =
        slices
            .filter { it.addressType == "IPv4" }
            .flatMap { slice ->
                val number =
                    slice.ports
                        .orEmpty()
                        .firstOrNull { it.name.orEmpty() == name.orEmpty() && (it.protocol ?: "TCP") == protocol }
                        ?.port ?: return@flatMap emptyList()
                slice.endpoints
                    .orEmpty()
                    .filter { it.conditions?.ready != false }
                    .flatMap { endpoint -> endpoint.addresses.orEmpty().map { Endpoint(it, number) } }
            }.distinct()
            .sortedWith(compareBy({ it.ip }, { it.port }))
}
