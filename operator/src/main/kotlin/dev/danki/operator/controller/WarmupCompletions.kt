package dev.danki.operator.controller

import dev.danki.operator.kube.BackoffPolicy
import io.fabric8.kubernetes.api.model.Pod
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * Warm-ups that ended, as events for their pods: the pool reports each from its own thread, and the
 * pod's next reconcile sees the warm-up over. A warm-up that crashed instead (a bug, not a failed k6
 * attempt) starts again only after [backoff]: a per-pod back-off of its own, since JOSDK's retry
 * starts over after every reconcile that succeeds, and so would restart it every 200 ms.
 */
class WarmupCompletions(
    private val now: () -> Instant = Instant::now,
) : SimpleInboundEventSource<Pod>(NAME) {
    /** A pod's crashes in a row, and when its warm-up may start again. */
    private data class Crashes(
        val count: Int,
        val until: Instant,
    )

    private val crashes = ConcurrentHashMap<String, Crashes>()

    /** [podKey] is `namespace/name`. */
    fun finished(podKey: String, crash: Throwable?) {
        val (namespace, name) = podKey.split('/', limit = 2)
        if (crash == null) {
            crashes.remove(podKey)
        } else {
            crashes.compute(podKey) { _, last ->
                val count = (last?.count ?: 0) + 1
                Crashes(count, now().plus(CRASH_BACKOFF.delay(count)))
            }
        }
        propagateEvent(ResourceID(name, namespace))
    }

    /** How long [podKey]'s warm-up still waits after its last crash; null when it may start. */
    fun backoff(podKey: String): Duration? =
        crashes[podKey]?.let { Duration.between(now(), it.until) }?.takeIf { it > Duration.ZERO }

    /** Forgets a pod that is gone. */
    fun forget(podKey: String) {
        crashes.remove(podKey)
    }

    private companion object {
        const val NAME = "warmup-completions"

        /** A crash is a bug: seconds at first, then no more than a few restarts an hour. */
        val CRASH_BACKOFF = BackoffPolicy(Duration.ofSeconds(1), Duration.ofMinutes(5))
    }
}
