package dev.danki.cluster.pod

import dev.danki.cluster.volume.ConfigKind
import dev.danki.cluster.volume.ConfigObjectSource
import io.fabric8.kubernetes.client.KubernetesClient
import java.util.Base64

/** ConfigMap and Secret reads, for env `valueFrom` (single keys) and for volumes (whole objects). */
interface ConfigSources :
    ConfigValueSource,
    ConfigObjectSource

/**
 * Reads ConfigMap and Secret keys straight from the API server, for env `valueFrom` and for
 * volumes. The agent uses the cluster's admin credentials, so it may read every one; a kubelet
 * may only read those of pods bound to its node (the Node authorizer).
 */
class ApiConfigValues(
    private val client: KubernetesClient,
) : ConfigSources {
    override fun value(kind: String, namespace: String, name: String, key: String): String? =
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

    override fun data(kind: ConfigKind, namespace: String, name: String): Map<String, ByteArray>? =
        when (kind) {
            ConfigKind.CONFIG_MAP -> {
                client.configMaps().inNamespace(namespace).withName(name).get()?.let { map ->
                    map.data.orEmpty().mapValues { it.value.toByteArray() } +
                        map.binaryData.orEmpty().mapValues { Base64.getDecoder().decode(it.value) }
                }
            }

            ConfigKind.SECRET -> {
                client.secrets().inNamespace(namespace).withName(name).get()?.let { secret ->
                    secret.data.orEmpty().mapValues { Base64.getDecoder().decode(it.value) }
                }
            }
        }
}
