package dev.danki.cluster.pod

import dev.danki.cluster.logging.warnWith
import io.fabric8.kubernetes.api.model.EventBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Instant
import java.util.concurrent.atomic.AtomicLong

/**
 * Pod events as the kubelet reports them (source `kubelet`, reasons Pulled, Started, Killing,
 * Unhealthy, BackOff, Failed), so `kubectl describe pod` tells what happened. A failed write is
 * only logged: events are for people, nothing depends on them.
 */
class PodEvents(
    private val client: KubernetesClient,
    private val nodeName: String,
) {
    private val log = LoggerFactory.getLogger(PodEvents::class.java)
    private val sequence = AtomicLong(System.currentTimeMillis())

    fun normal(
        pod: Pod,
        container: String?,
        reason: String,
        message: String,
    ) = record(pod, container, "Normal", reason, message)

    fun warning(
        pod: Pod,
        container: String?,
        reason: String,
        message: String,
    ) = record(pod, container, "Warning", reason, message)

    private fun record(
        pod: Pod,
        container: String?,
        type: String,
        reason: String,
        message: String,
    ) {
        val meta = pod.metadata
        val now = Instant.now().toString()
        val event =
            EventBuilder()
                .withNewMetadata()
                .withName("${meta.name}.${java.lang.Long.toHexString(sequence.incrementAndGet())}")
                .withNamespace(meta.namespace)
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(meta.name)
                .withNamespace(meta.namespace)
                .withUid(meta.uid)
                .withFieldPath(container?.let { "spec.containers{$it}" })
                .endInvolvedObject()
                .withType(type)
                .withReason(reason)
                .withMessage(message.take(MAX_MESSAGE))
                .withNewSource("kubelet", nodeName)
                .withReportingComponent("kubelet")
                .withReportingInstance(nodeName)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .build()
        try {
            client
                .v1()
                .events()
                .inNamespace(meta.namespace)
                .resource(event)
                .create()
        } catch (e: KubernetesClientException) {
            val fields = listOf("namespace" to meta.namespace, "pod" to meta.name, "reason" to reason)
            log.warnWith("pod event write failed", fields, error = e)
        }
    }

    private companion object {
        /** The API server's limit on an event message. */
        const val MAX_MESSAGE = 1024
    }
}
