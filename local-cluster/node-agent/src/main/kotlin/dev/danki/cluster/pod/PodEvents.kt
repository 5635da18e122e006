package dev.danki.cluster.pod

import dev.danki.cluster.logging.warnWith
import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.EventBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import org.slf4j.LoggerFactory
import java.time.Instant
import java.util.concurrent.atomic.AtomicLong

/** Where containers report what happened to them; returns at once, whatever the API server does. */
interface PodEventRecorder {
    fun normal(pod: Pod, container: String?, reason: String, message: String)

    fun warning(pod: Pod, container: String?, reason: String, message: String)
}

/**
 * Pod events as the kubelet reports them (source `kubelet`, reasons Started, Killing, Unhealthy,
 * BackOff, Failed), so `kubectl describe pod` tells what happened. Written in order by one
 * coroutine in [scope], so no signal or probe waits on the API server; a failed write, or an
 * event that finds the queue full, is only logged: events are for people, nothing depends on them.
 */
class PodEvents(
    private val client: KubernetesClient,
    private val nodeName: String,
    scope: CoroutineScope,
) : PodEventRecorder {
    private val log = LoggerFactory.getLogger(PodEvents::class.java)
    private val sequence = AtomicLong(System.currentTimeMillis())
    private val queue = Channel<Event>(QUEUE_SIZE)

    init {
        scope.launch(Dispatchers.IO) { for (event in queue) write(event) }
    }

    override fun normal(pod: Pod, container: String?, reason: String, message: String) =
        record(pod, container, "Normal", reason, message)

    override fun warning(pod: Pod, container: String?, reason: String, message: String) =
        record(pod, container, "Warning", reason, message)

    private fun record(pod: Pod, container: String?, type: String, reason: String, message: String) {
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
        if (queue.trySend(event).isFailure) log.warnWith("pod event dropped, queue full", fields(event))
    }

    /** The writer's boundary: whatever one write throws, the writer goes on with the next event. */
    @Suppress("TooGenericExceptionCaught")
    private fun write(event: Event) {
        try {
            client
                .v1()
                .events()
                .inNamespace(event.metadata.namespace)
                .resource(event)
                .create()
        } catch (e: RuntimeException) {
            log.warnWith("pod event write failed", fields(event), error = e)
        }
    }

    private fun fields(event: Event) =
        listOf(
            "namespace" to event.metadata.namespace,
            "pod" to event.involvedObject.name,
            "reason" to event.reason,
        )

    private companion object {
        /** The API server's limit on an event message. */
        const val MAX_MESSAGE = 1024

        /** Events waiting for the API server; beyond this a slow API server costs events, not probes. */
        const val QUEUE_SIZE = 256
    }
}
