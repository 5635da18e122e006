package dev.danki.cluster.pod

import io.fabric8.kubernetes.client.KubernetesClient
import java.util.Base64

/** Reads ConfigMap and Secret keys for env `valueFrom` straight from the API server. */
class ApiConfigValues(
    private val client: KubernetesClient,
) : ConfigValueSource {
    override fun value(
        kind: String,
        namespace: String,
        name: String,
        key: String,
    ): String? =
        when (kind) {
            "ConfigMap" -> {
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .withName(name)
                    .get()
                    ?.data
                    ?.get(key)
            }

            "Secret" -> {
                client.secrets().inNamespace(namespace).withName(name).get()?.let { secret ->
                    secret.stringData?.get(key) ?: secret.data?.get(key)?.let { String(Base64.getDecoder().decode(it)) }
                }
            }

            else -> {
                null
            }
        }
}
