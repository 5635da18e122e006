package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.PodSpec

/**
 * A pod's QoS class as the API server will compute it, read from its spec: at admission its status is
 * empty. Guaranteed: every container, init containers too, has CPU and memory limits and requests equal
 * to them (the API server has defaulted a missing request to its limit before the webhook sees the pod).
 */
object PodQos {
    private val RESOURCES = listOf("cpu", "memory")

    fun guaranteed(spec: PodSpec): Boolean =
        (spec.initContainers.orEmpty() + spec.containers.orEmpty()).let { all ->
            all.isNotEmpty() && all.all(::guaranteed)
        }

    private fun guaranteed(container: Container): Boolean =
        RESOURCES.all { resource ->
            val limit = container.resources?.limits?.get(resource) ?: return@all false
            val request = container.resources?.requests?.get(resource) ?: limit
            CpuQuantity.millisOf(limit) == CpuQuantity.millisOf(request)
        }
}
