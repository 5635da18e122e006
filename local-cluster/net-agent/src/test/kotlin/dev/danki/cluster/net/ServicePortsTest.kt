package dev.danki.cluster.net

import io.fabric8.kubernetes.api.model.IntOrString
import io.fabric8.kubernetes.api.model.Service
import io.fabric8.kubernetes.api.model.ServiceBuilder
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder
import kotlin.test.Test
import kotlin.test.assertEquals

class ServicePortsTest {
    private val api = Endpoint("198.18.21.1", 6464)

    private fun service(namespace: String, name: String, clusterIp: String, vararg ports: Pair<String?, Int>): Service =
        ServiceBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withClusterIP(clusterIp)
            .apply {
                ports.forEach { (portName, port) ->
                    addNewPort()
                        .withName(
                            portName,
                        ).withPort(port)
                        .withProtocol("TCP")
                        .withTargetPort(IntOrString(port))
                        .endPort()
                }
            }.endSpec()
            .build()

    /** A slice of [service] with its port [portName] -> [number] and endpoints (address to ready). */
    private fun slice(
        service: String,
        portName: String?,
        number: Int,
        vararg endpoints: Pair<String, Boolean?>,
    ): EndpointSlice =
        EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("$service-abc")
            .addToLabels("kubernetes.io/service-name", service)
            .endMetadata()
            .withAddressType("IPv4")
            .addNewPort()
            .withName(portName)
            .withPort(number)
            .withProtocol("TCP")
            .endPort()
            .apply {
                endpoints.forEach { (ip, ready) ->
                    addNewEndpoint()
                        .withAddresses(
                            ip,
                        ).withNewConditions()
                        .withReady(ready)
                        .endConditions()
                        .endEndpoint()
                }
            }.build()

    @Test
    fun `the kubernetes Service leads to the API server, which no slice lists`() {
        val ports =
            ServicePorts.of(
                listOf(service("default", "kubernetes", "10.96.0.1", "https" to 443)),
                emptyList(),
                api,
            )
        assertEquals(listOf(ServicePort("default/kubernetes:https", "10.96.0.1", 443, "TCP", listOf(api))), ports)
    }

    @Test
    fun `ready endpoints of the slices back the port of the same name, unready and gated ones do not`() {
        val web = service("shop", "web", "10.96.0.20", "http" to 80, "metrics" to 9090)
        val slices =
            listOf(
                slice("web", "http", 8080, "198.19.8.3" to true, "198.19.9.2" to null, "198.19.8.4" to false),
                slice("web", "metrics", 9000, "198.19.8.3" to true),
                slice("other", "http", 7000, "198.19.8.9" to true),
            )
        val ports = ServicePorts.of(listOf(web), slices, api)
        assertEquals(listOf(Endpoint("198.19.8.3", 8080), Endpoint("198.19.9.2", 8080)), ports[0].backends)
        assertEquals(listOf(Endpoint("198.19.8.3", 9000)), ports[1].backends)
        assertEquals("shop/web:metrics", ports[1].id)
    }

    @Test
    fun `an unnamed port matches the slice's unnamed port and is named by its number`() {
        val ports =
            ServicePorts.of(
                listOf(service("shop", "web", "10.96.0.20", null to 80)),
                listOf(slice("web", "", 8080, "198.19.8.3" to true)),
                api,
            )
        assertEquals(
            ServicePort("shop/web:80", "10.96.0.20", 80, "TCP", listOf(Endpoint("198.19.8.3", 8080))),
            ports.single(),
        )
    }

    @Test
    fun `headless Services have no ClusterIP to translate`() {
        val ports = ServicePorts.of(listOf(service("shop", "db", "None", "pg" to 5432)), emptyList(), api)
        assertEquals(emptyList(), ports)
    }
}
