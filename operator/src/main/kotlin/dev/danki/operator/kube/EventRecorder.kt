package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Event
import io.fabric8.kubernetes.api.model.EventBuilder
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.Collections
import java.util.UUID

/** Writes core/v1 Events on pods and Deployments. [warningOnce] skips an Event already written for the same object. */
class EventRecorder(
    private val client: KubernetesClient,
    private val instance: String,
) {
    private val log = LoggerFactory.getLogger(EventRecorder::class.java)

    /** Remembers (uid, reason, message) already emitted; bounded so a long run does not grow without end. */
    private val emitted: MutableSet<String> = Collections.newSetFromMap(BoundedMap(MAX_REMEMBERED))

    fun normal(target: HasMetadata, reason: String, message: String) = emit(target, TYPE_NORMAL, reason, message)

    fun warning(target: HasMetadata, reason: String, message: String) = emit(target, TYPE_WARNING, reason, message)

    /** A Warning written at most once per object, reason and message (e.g. an invalid annotation). */
    fun warningOnce(target: HasMetadata, reason: String, message: String) {
        // a digest, not the message: a message can quote a large annotation, and this set lives long
        val key = "${target.metadata.uid}|$reason|${Messages.digest(message)}"
        val first = synchronized(emitted) { emitted.add(key) }
        if (first) emit(target, TYPE_WARNING, reason, message)
    }

    private fun emit(target: HasMetadata, type: String, reason: String, message: String) {
        val meta = target.metadata
        try {
            client
                .v1()
                .events()
                .inNamespace(meta.namespace)
                .resource(eventFor(target, type, reason, Messages.cut(message)))
                .create()
        } catch (e: KubernetesClientException) {
            // an Event is best effort: losing one must not fail the warm-up it describes
            log
                .atWarn()
                .addKeyValue("namespace", meta.namespace)
                .addKeyValue("object", meta.name)
                .addKeyValue("reason", reason)
                .setCause(e)
                .log("event not written")
        }
    }

    private fun eventFor(target: HasMetadata, type: String, reason: String, message: String): Event {
        val now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        val meta = target.metadata
        return EventBuilder()
            .withNewMetadata()
            .withName("${meta.name}.${UUID.randomUUID().toString().take(NAME_SUFFIX)}")
            .withNamespace(meta.namespace)
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion(target.apiVersion)
            .withKind(target.kind)
            .withName(meta.name)
            .withNamespace(meta.namespace)
            .withUid(meta.uid)
            .endInvolvedObject()
            .withType(type)
            .withReason(reason)
            .withMessage(message)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .withNewSource(Keys.FIELD_MANAGER, null)
            .withReportingComponent(Keys.FIELD_MANAGER)
            .withReportingInstance(instance)
            .build()
    }

    companion object {
        const val TYPE_NORMAL = "Normal"
        const val TYPE_WARNING = "Warning"
        private const val NAME_SUFFIX = 13
        private const val MAX_REMEMBERED = 10_000
    }
}
