package dev.danki.operator.e2e

import dev.danki.operator.gate.PodGate
import io.fabric8.kubernetes.client.KubernetesClient
import java.util.Collections
import java.util.concurrent.TimeUnit

/** Polls a Service's EndpointSlices: a ready endpoint whose pod's gate is not True is a violation. */
class EndpointWatch(
    private val client: KubernetesClient,
    private val ns: String,
    private val service: String,
) : AutoCloseable {
    val violations: MutableList<String> = Collections.synchronizedList(mutableListOf())
    val seenReady: MutableSet<String> = Collections.synchronizedSet(mutableSetOf())

    @Volatile private var running = true
    private val thread =
        Thread {
            val end = System.nanoTime() + TimeUnit.MINUTES.toNanos(WATCH_MINUTES)
            while (running && System.nanoTime() < end) {
                check()
                Thread.sleep(POLL_MILLIS)
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
            if (gate?.status != "True") violations += "$podName ready in EndpointSlice with gate ${gate?.status}"
        }
    }

    override fun close() {
        running = false
        thread.join(TimeUnit.SECONDS.toMillis(5))
    }

    private companion object {
        const val POLL_MILLIS = 100L
        const val WATCH_MINUTES = 15L
    }
}
