package dev.danki.operator.controller

import io.fabric8.kubernetes.api.model.Pod
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource
import java.util.concurrent.ConcurrentHashMap

/**
 * Warm-ups that ended, as events for their pods: the pool reports each from its own thread, and the
 * pod's next reconcile sees the warm-up over. A warm-up that crashed instead (a bug, not a failed k6
 * attempt) fails that reconcile with its exception, so JOSDK's retry spaces the next tries.
 */
class WarmupCompletions : SimpleInboundEventSource<Pod>(NAME) {
    private val crashes = ConcurrentHashMap<String, Throwable>()

    /** [podKey] is `namespace/name`. */
    fun finished(podKey: String, crash: Throwable?) {
        val (namespace, name) = podKey.split('/', limit = 2)
        if (crash != null) crashes[podKey] = crash
        propagateEvent(ResourceID(name, namespace))
    }

    /** The crash of [podKey]'s last warm-up, once; null when it ended normally. */
    fun takeCrash(podKey: String): Throwable? = crashes.remove(podKey)

    private companion object {
        const val NAME = "warmup-completions"
    }
}
