package dev.danki.operator.webhook

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * Pods that an opted-in Deployment created after it opted in, but that carry no gate: admitted while the
 * webhook was unreachable (failurePolicy Ignore let them through). They join their Service unwarmed;
 * the leader counts each once in a metric and says so in a Warning Event on the Deployment.
 */
class MissedGates(
    private val caches: Caches,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
) {
    private val seen: MutableSet<String> = ConcurrentHashMap.newKeySet()

    /**
     * Reports [pod] if it is one the webhook missed; the pod reconciler calls this (on the leader) for
     * every ungated pod a Deployment owns, including those already there when this replica began to lead.
     */
    fun check(pod: Pod) {
        if (PodGate.hasGate(pod) || pod.metadata.deletionTimestamp != null) return
        val deployment = optedInDeploymentOf(pod) ?: return
        val optedIn = optedInAt(deployment, caches.namespaces?.get(pod.metadata.namespace))
        val created = pod.metadata.creationTimestamp?.let(Instant::parse)
        // pods from before the opt-in stay as they are by design (no rollout); only later ones were missed
        val missed = optedIn != null && created != null && created.isAfter(optedIn)
        if (!missed || !seen.add(pod.metadata.uid)) return
        metrics.podNotGated(pod.metadata.namespace, deployment.metadata.name)
        events.warningOnce(
            deployment,
            Keys.EventReasons.POD_NOT_GATED,
            "pod ${pod.metadata.name} was admitted without the ${Keys.GATE_CONDITION} readiness gate " +
                "(the danki webhook was unreachable), so it joins the Service unwarmed; " +
                "delete the pod to have it recreated with the gate",
        )
    }

    /** [pod] is gone: forgets that it was reported. */
    fun forget(pod: Pod) {
        seen.remove(pod.metadata.uid)
    }

    private fun optedInDeploymentOf(pod: Pod): Deployment? {
        val name = PodOwners.deploymentOf(pod) ?: return null
        val deployment = caches.deployments.get(pod.metadata.namespace, name)
        val labels = caches.namespaceLabels(pod.metadata.namespace)
        return deployment?.takeIf { WarmupSwitch.of(it, labels) == WarmupSwitch.ENABLED }
    }

    companion object {
        /**
         * When [deployment] opted in: when its `danki.dev/warmup` annotation was last written or, without
         * one, when [namespace]'s opt-in label was. Read from the managedFields entry that owns the field
         * (null: unknown, so nothing is reported). The entry's time moves with any later change by the same
         * manager, which can only hide a missed pod, never report a pod that was not missed.
         */
        fun optedInAt(deployment: Deployment, namespace: Namespace? = null): Instant? =
            if (deployment.metadata.annotations
                    .orEmpty()
                    .containsKey(Keys.Annotations.WARMUP)
            ) {
                writtenAt(deployment, "f:annotations", Keys.Annotations.WARMUP)
            } else {
                namespace?.let { writtenAt(it, "f:labels", Keys.NAMESPACE_OPT_IN_LABEL) }
            }

        private fun writtenAt(resource: HasMetadata, fieldSet: String, key: String): Instant? =
            resource.metadata.managedFields
                .orEmpty()
                .filter { owns(it.fieldsV1?.additionalProperties, fieldSet, key) }
                .mapNotNull { entry -> entry.time?.let { runCatching { Instant.parse(it) }.getOrNull() } }
                .maxOrNull()

        private fun owns(fields: Map<String, Any>?, fieldSet: String, key: String): Boolean {
            val metadata = fields?.get("f:metadata") as? Map<*, *> ?: return false
            val keys = metadata[fieldSet] as? Map<*, *> ?: return false
            return keys.containsKey("f:$key")
        }
    }
}
