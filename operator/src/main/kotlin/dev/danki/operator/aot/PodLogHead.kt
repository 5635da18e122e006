package dev.danki.operator.aot

import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory

/** [AotProbe.LogReader] through the API server: `GET .../pods/<pod>/log?container=<c>&limitBytes=<n>`. */
class PodLogHead(
    private val client: KubernetesClient,
) : AotProbe.LogReader {
    private val log = LoggerFactory.getLogger(PodLogHead::class.java)

    override fun head(namespace: String, pod: String, container: String, limitBytes: Int): String? =
        try {
            client
                .pods()
                .inNamespace(namespace)
                .withName(pod)
                .inContainer(container)
                .limitBytes(limitBytes)
                .log
        } catch (e: KubernetesClientException) {
            // gone, not started, or the API server did not answer: the outcome is then unknown
            log
                .atDebug()
                .addKeyValue("namespace", namespace)
                .addKeyValue("pod", pod)
                .addKeyValue("container", container)
                .addKeyValue("code", e.code)
                .setCause(e)
                .log("container log not read")
            null
        }
}
