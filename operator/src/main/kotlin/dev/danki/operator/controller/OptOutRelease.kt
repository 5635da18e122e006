package dev.danki.operator.controller

import io.fabric8.kubernetes.api.model.apps.Deployment
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * Releases the gated pods of a Deployment switched off, on the user's last word. Releasing sends a
 * pod cold into its Service and cannot be undone, so the Deployment must say "off" for [SETTLE] in a
 * row, read past the cache from the API server each time: a user who toggles warm-up off and on
 * again quickly ends with the pod warmed, and a real opt-out costs its pods 2 s more behind the gate.
 */
class OptOutRelease(
    private val actions: RunActions,
    /** The Deployment as the API server has it now (null: gone). */
    private val deploymentNow: (namespace: String, name: String) -> Deployment?,
    /** Whether a Deployment asks for warm-up (PodReconciler's rule). */
    private val wanted: (Deployment) -> Boolean,
) {
    private val log = LoggerFactory.getLogger(OptOutRelease::class.java)

    /** When this process first found each gated pod's Deployment switched off. */
    private val offSince = ConcurrentHashMap<String, Instant>()

    /** Releases the pod once "off" has held long enough; else when to look again. */
    fun release(ctx: RunContext): Duration? {
        val namespace = ctx.pod.metadata.namespace
        val latest = ctx.deployment.takeIf { it.isNotEmpty() }?.let { deploymentNow(namespace, it) }
        if (latest != null && wanted(latest)) {
            forget(ctx.podKey)
            log
                .atInfo()
                .addKeyValue("namespace", namespace)
                .addKeyValue("pod", ctx.pod.metadata.name)
                .log("not released: the Deployment asks for warm-up again")
            // the cache is behind: its update brings the pod back; the requeue is for a missed event
            return SETTLE
        }
        val now = Instant.now()
        val left = Duration.between(now, offSince.computeIfAbsent(ctx.podKey) { now }.plus(SETTLE))
        if (!left.isNegative && !left.isZero) return left
        forget(ctx.podKey)
        actions.release(ctx)
        return null
    }

    /** Any decision but a release means the Deployment said "on" meanwhile (or the pod is gone). */
    fun forget(podKey: String) {
        offSince.remove(podKey)
    }

    private companion object {
        /** How long a Deployment must say "off" before its gated pods are released. */
        val SETTLE: Duration = Duration.ofSeconds(2)
    }
}
