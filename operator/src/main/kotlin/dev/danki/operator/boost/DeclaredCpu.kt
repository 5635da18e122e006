package dev.danki.operator.boost

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod

/**
 * The CPU a container was declared with, before the webhook raised it at admission: what the pod's
 * [Keys.DECLARED_CPU_ANNOTATION] says, in the canonical forms of [CpuQuantity]. [requestMillis] only for
 * a Guaranteed pod, whose request moved with its limit.
 */
data class DeclaredCpu(
    val container: String,
    val limitMillis: Long,
    val requestMillis: Long?,
) {
    /** The annotation's value. */
    fun annotation(): String =
        json.writeValueAsString(
            mapOf(CONTAINER to container, LIMIT to CpuQuantity.format(limitMillis)) +
                listOfNotNull(requestMillis?.let { REQUEST to CpuQuantity.format(it) }),
        )

    companion object {
        private val json = ObjectMapper()
        private const val CONTAINER = "container"
        private const val LIMIT = "limit"
        private const val REQUEST = "request"

        /**
         * What [pod]'s annotation says, or null when it has none or an unreadable one. The webhook writes it
         * over any value the pod came with, but a tenant can edit a pod's annotations afterwards: a value
         * read here is never taken as more than the pod has now ([CpuBoost.fromAdmission] checks).
         */
        fun of(pod: Pod): DeclaredCpu? {
            val raw = pod.metadata?.annotations?.get(Keys.DECLARED_CPU_ANNOTATION) ?: return null
            return runCatching { parse(raw) }.getOrNull()
        }

        /** Throws for anything but the webhook's own form. */
        private fun parse(raw: String): DeclaredCpu {
            val fields = json.readValue(raw, Map::class.java)
            val container = requireNotNull((fields[CONTAINER] as? String)?.takeIf { it.isNotBlank() })
            val limit = requireNotNull((fields[LIMIT] as? String)?.let(CpuQuantity::parseMillis))
            val request = fields[REQUEST]?.let { requireNotNull((it as? String)?.let(CpuQuantity::parseMillis)) }
            return DeclaredCpu(container, limit, request)
        }
    }
}
