package dev.danki.operator.e2e

import dev.danki.operator.gate.PodGate
import io.fabric8.kubernetes.client.KubernetesClient
import java.util.Collections
import java.util.concurrent.TimeUnit

/**
 * Polls a Service's EndpointSlices: a ready endpoint whose pod's gate is not True is a violation.
 * A poll that throws, or a watch that outlives [WATCH_MINUTES], stops the watching: then
 * [violations] and [close] fail, so "no violation" is never claimed for a time nobody looked.
 */
class EndpointWatch(
    private val client: KubernetesClient,
    private val ns: String,
    private val service: String,
) : AutoCloseable {
    private val found: MutableList<String> = Collections.synchronizedList(mutableListOf())
    val seenReady: MutableSet<String> = Collections.synchronizedSet(mutableSetOf())

    /** Why the watching stopped before [close], if it did. */
    @Volatile var failure: Throwable? = null
        private set

    /** What was seen so far; throws if the watching stopped early. */
    val violations: List<String>
        get() {
            failure?.let { throw AssertionError("the EndpointSlice watch of $service stopped early: $it", it) }
            return found.toList()
        }

    @Volatile private var running = true
    private val thread =
        Thread {
            val end = System.nanoTime() + TimeUnit.MINUTES.toNanos(WATCH_MINUTES)
            try {
                while (running && System.nanoTime() < end) {
                    check()
                    Thread.sleep(POLL_MILLIS)
                }
                if (running) failure = IllegalStateException("still in use after $WATCH_MINUTES minutes")
            } catch (
                @Suppress("TooGenericExceptionCaught") e: Exception,
            ) {
                failure = e // a KubernetesClientException, or an interrupt
            }
        }.apply { start() }

    private fun check() {
        val slices =
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(ns)
                .withLabel("kubernetes.io/service-name", service)
                .list()
                .items
        val ready = slices.flatMap { it.endpoints.orEmpty() }.filter { it.conditions?.ready == true }
        for (podName in ready.mapNotNull { it.targetRef?.name }) {
            val pod =
                client
                    .pods()
                    .inNamespace(ns)
                    .withName(podName)
                    .get()
            if (pod == null || !PodGate.hasGate(pod)) continue
            seenReady += podName
            val gate = PodGate.conditionOf(pod)
            if (gate?.status != "True") found += "$podName ready in EndpointSlice with gate ${gate?.status}"
        }
    }

    /** Stops watching; fails if the watching had stopped early (a poll threw). */
    override fun close() {
        running = false
        thread.join(TimeUnit.SECONDS.toMillis(JOIN_SECONDS))
        failure?.let { throw AssertionError("the EndpointSlice watch of $service stopped early: $it", it) }
    }

    private companion object {
        const val POLL_MILLIS = 100L
        const val WATCH_MINUTES = 15L
        const val JOIN_SECONDS = 5L
    }
}
