package dev.danki.operator.webhook

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.UngatedPods
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.concurrent.ConcurrentHashMap

/**
 * Pods of a Deployment that the webhook did not see, found by [UnlabeledPods] (the pod cache holds only
 * the pods it labelled):
 * - pods of an opted-in Deployment created without the gate: admitted while the webhook was unreachable
 *   (failurePolicy Ignore let them through) or could not read their Deployment in time. They join their
 *   Service unwarmed. The leader counts each once in a metric and says so in a Warning Event on the
 *   Deployment; with `danki.dev/ungated-pods: replace` it also evicts the pod, unless it has served long
 *   enough to be warm, so that its ReplicaSet recreates it with the gate.
 * - pods with the gate from their template but without the label: no warm-up would ever decide them, and
 *   they serve nothing while gated, so they are evicted once the webhook can label their replacement.
 */
class MissedGates(
    private val caches: Caches,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
    private val eviction: (Pod) -> Boolean,
    /** The chart's `webhook.ungatedPods`, for Deployments without the annotation. */
    private val defaultPolicy: UngatedPods,
    /** Whether the API server can reach the webhook now ([WebhookEndpoints]): a replacement is gated only then. */
    private val webhookReachable: () -> Boolean,
    private val now: () -> Instant = Instant::now,
) {
    private val log = LoggerFactory.getLogger(MissedGates::class.java)

    /** The pods reported once, by UID, with their Deployment (namespace/name): kept while [retain] lists them. */
    private val seen = ConcurrentHashMap<String, String>()

    /** Per Deployment (namespace/name): its first eviction in the window, and the pods that came after it ungated. */
    private class Replacements(
        val firstEviction: Instant,
        val cameBackUngated: MutableSet<String> = mutableSetOf(),
    )

    /** Guarded by itself; entries older than [REPLACEMENT_WINDOW] are dropped. */
    private val replacements = HashMap<String, Replacements>()

    /**
     * Reports [pod] of [deployment], one its pod cache does not hold, and replaces it if that is due. The
     * leader calls this for each such pod on every event of a Deployment whose pods danki gates, including
     * those already there when this replica began to lead. Returns when to look again: an eviction that a
     * PodDisruptionBudget refuses for now is tried again then.
     */
    fun check(pod: Pod, deployment: Deployment): Duration? {
        if (pod.metadata.deletionTimestamp != null) return null
        return if (PodGate.hasGate(pod)) unlabeled(pod, deployment) else ungated(pod, deployment)
    }

    /** Of [deployment]'s pods, only [uids] are still there: the others are forgotten. */
    fun retain(namespace: String, deployment: String, uids: Set<String>) {
        val key = ObjectKeys.of(namespace, deployment)
        seen.entries.removeIf { (uid, owner) -> owner == key && uid !in uids }
    }

    private fun ungated(pod: Pod, deployment: Deployment): Duration? {
        val labels = caches.namespaceLabels(pod.metadata.namespace)
        if (WarmupSwitch.of(deployment, labels) != WarmupSwitch.ENABLED) return null
        val optedIn = optedInAt(deployment, caches.namespaces?.get(pod.metadata.namespace))
        if (!missed(pod, optedIn)) return null
        val policy = UngatedPods.of(deployment.metadata.annotations.orEmpty(), defaultPolicy)
        val servedFor = servedFor(pod, now())
        val replace = policy == UngatedPods.REPLACE && servedFor < SERVED_LONG
        if (firstSeen(pod, deployment)) report(pod, deployment, policy, servedFor, replace)
        return if (replace) replace(pod, deployment, ungated = true) else null
    }

    private fun unlabeled(pod: Pod, deployment: Deployment): Duration? {
        if (firstSeen(pod, deployment)) {
            events.warningOnce(
                deployment,
                Keys.EventReasons.POD_NOT_LABELED,
                "pod ${pod.metadata.name} carries the ${Keys.GATE_CONDITION} readiness gate but not the " +
                    "${Keys.WARMUP_LABEL} label (its template's gate, admitted while the danki webhook was " +
                    "unreachable or before danki labelled such pods), so danki does not watch it and would never " +
                    "decide it; it serves nothing while gated, so danki evicts it and the webhook labels its " +
                    "replacement",
            )
        }
        return replace(pod, deployment, ungated = false)
    }

    private fun firstSeen(pod: Pod, deployment: Deployment): Boolean =
        seen.put(pod.metadata.uid, ObjectKeys.of(pod.metadata.namespace, deployment.metadata.name)) == null

    private fun report(pod: Pod, deployment: Deployment, policy: UngatedPods, servedFor: Duration, replace: Boolean) {
        metrics.podNotGated(pod.metadata.namespace, deployment.metadata.name)
        val next =
            when {
                replace -> {
                    "danki evicts it (${Keys.Annotations.UNGATED_PODS}: replace), so that its ReplicaSet recreates " +
                        "it with the gate"
                }

                policy == UngatedPods.REPLACE -> {
                    "it has served for ${DurationFormat.format(servedFor)}, so danki keeps it: its own traffic " +
                        "has warmed it, and a replacement would start cold"
                }

                else -> {
                    "delete the pod to have it recreated with the gate, or set " +
                        "${Keys.Annotations.UNGATED_PODS}: replace to have danki do it"
                }
            }
        events.warningOnce(
            deployment,
            Keys.EventReasons.POD_NOT_GATED,
            "pod ${pod.metadata.name} was admitted without the ${Keys.GATE_CONDITION} readiness gate (the danki " +
                "webhook was unreachable or could not read its Deployment in time), so it joins the Service " +
                "unwarmed; $next",
        )
    }

    /** Evicts [pod] so that its ReplicaSet recreates it through the webhook; [ungated]: it lacks the gate. */
    private fun replace(pod: Pod, deployment: Deployment, ungated: Boolean): Duration? {
        if (!webhookReachable()) {
            // evicted now, its replacement would be admitted ungated too; look again once the webhook is up
            return EVICTION_RETRY
        }
        val key = ObjectKeys.of(pod.metadata.namespace, deployment.metadata.name)
        if (!withinReplacementBudget(key, pod)) {
            val pause = DurationFormat.format(REPLACEMENT_WINDOW)
            events.warningOnce(
                deployment,
                Keys.EventReasons.POD_NOT_GATED,
                "$MAX_CAME_BACK pods created after danki began replacing this Deployment's ungated pods came " +
                    "without the gate or its label too (the last: ${pod.metadata.name}): the webhook does not " +
                    "seem to reach new pods, so danki stops replacing them for $pause; check the webhook's " +
                    "Service and the API server's log",
            )
            return REPLACEMENT_WINDOW
        }
        if (!eviction(pod)) {
            log
                .atInfo()
                .addKeyValue("namespace", pod.metadata.namespace)
                .addKeyValue("pod", pod.metadata.name)
                .log("ungated pod not evicted: a PodDisruptionBudget does not allow it now; trying again")
            return EVICTION_RETRY
        }
        synchronized(replacements) { replacements.getOrPut(key) { Replacements(now()) } }
        if (ungated) metrics.ungatedPodReplaced(pod.metadata.namespace, deployment.metadata.name)
        val missing = if (ungated) "the ${Keys.GATE_CONDITION} readiness gate" else "the ${Keys.WARMUP_LABEL} label"
        events.normal(
            deployment,
            Keys.EventReasons.UNGATED_POD_REPLACED,
            "evicted pod ${pod.metadata.name}, admitted without $missing; its ReplicaSet recreates it " +
                "through the webhook, and danki warms the new pod",
        )
        return null
    }

    /**
     * Whether [pod] may be replaced: fewer than [MAX_CAME_BACK] ungated pods of [key] were created since
     * its first eviction in the window. Pods created before it (a scale-up while danki was away) are
     * all replaced; pods that keep arriving ungated after it mean the webhook is not reaching them.
     */
    private fun withinReplacementBudget(key: String, pod: Pod): Boolean {
        val created = instantOf(pod.metadata.creationTimestamp)
        return synchronized(replacements) {
            val since = now().minus(REPLACEMENT_WINDOW)
            replacements.values.removeIf { it.firstEviction.isBefore(since) }
            val window = replacements[key] ?: return@synchronized true
            // whole seconds: a pod of the first eviction's own second counts as one that came after it
            if (created == null || !created.isBefore(window.firstEviction.truncatedTo(ChronoUnit.SECONDS))) {
                window.cameBackUngated += pod.metadata.uid
            }
            window.cameBackUngated.size < MAX_CAME_BACK
        }
    }

    companion object {
        /**
         * A pod Ready this long has taken its cold requests already and is warm from its own traffic; it
         * is reported, not evicted. Two minutes: a JVM service is within 1.25x of fully warm after about
         * 600 requests (bench/results), a minute of even light traffic.
         */
        val SERVED_LONG: Duration = Duration.ofMinutes(2)

        /** When an eviction a PodDisruptionBudget refused, or an unreachable webhook put off, is tried again. */
        val EVICTION_RETRY: Duration = Duration.ofSeconds(10)

        /**
         * When this many pods of one Deployment, created after danki's first eviction of its pods in
         * [REPLACEMENT_WINDOW], arrive without the gate as well, the webhook does not reach new pods (a
         * broken caBundle, a network policy): evicting on would only churn the Deployment.
         */
        const val MAX_CAME_BACK = 3
        val REPLACEMENT_WINDOW: Duration = Duration.ofMinutes(10)

        /** How long [pod] has been Ready at [now] (zero when it is not). */
        fun servedFor(pod: Pod, now: Instant): Duration {
            val ready =
                pod.status
                    ?.conditions
                    .orEmpty()
                    .firstOrNull { it.type == "Ready" && it.status == "True" }
            val since = instantOf(ready?.lastTransitionTime)
            return since?.let { Duration.between(it, now).coerceAtLeast(Duration.ZERO) } ?: Duration.ZERO
        }

        /**
         * Whether [pod] was created after its Deployment opted in at [optedIn]. Both times are known to the
         * second only, so a pod of the same second counts as missed, and so does a pod whose times are
         * unknown: a false report costs an Event, a missed one a cold pod.
         */
        fun missed(pod: Pod, optedIn: Instant?): Boolean {
            val created = instantOf(pod.metadata.creationTimestamp)
            return optedIn == null || created == null || !created.isBefore(optedIn)
        }

        /**
         * When [deployment] opted in: when its `danki.dev/warmup` annotation was last written or, without
         * one, when [namespace]'s opt-in label was. Read from the managedFields entry that owns the field
         * (null: unknown). The entry's time moves with any later change by the same manager, which can
         * only hide a missed pod, never report a pod from before the opt-in.
         */
        fun optedInAt(deployment: Deployment, namespace: Namespace? = null): Instant? =
            if (Keys.Annotations.WARMUP in deployment.metadata.annotations.orEmpty()) {
                writtenAt(deployment, "f:annotations", Keys.Annotations.WARMUP)
            } else {
                namespace?.let { writtenAt(it, "f:labels", Keys.NAMESPACE_OPT_IN_LABEL) }
            }

        private fun writtenAt(resource: HasMetadata, fieldSet: String, key: String): Instant? =
            resource.metadata.managedFields
                .orEmpty()
                .filter { owns(it.fieldsV1?.additionalProperties, fieldSet, key) }
                .mapNotNull { instantOf(it.time) }
                .maxOrNull()

        /** An API server's timestamp; null when absent or unreadable. */
        private fun instantOf(time: String?): Instant? = time?.let { runCatching { Instant.parse(it) }.getOrNull() }

        private fun owns(fields: Map<String, Any>?, fieldSet: String, key: String): Boolean {
            val metadata = fields?.get("f:metadata") as? Map<*, *> ?: return false
            val keys = metadata[fieldSet] as? Map<*, *> ?: return false
            return keys.containsKey("f:$key")
        }
    }
}
