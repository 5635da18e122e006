package dev.danki.cluster.status

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.utils.Serialization

/**
 * Whether a pod's status already shows everything a [PodStatusPatch] would write, so the write
 * can be skipped: the kubelet writes status on change only. Every field of the patch must be
 * there with the same value; a null in the patch (a field to delete) must be absent; list entries
 * (conditions, container statuses, IPs) are found by value, and entries the patch does not name
 * (readiness-gate conditions of other controllers) do not matter.
 */
object StatusComparison {
    private val json = ObjectMapper()

    fun holds(pod: Pod, patch: PodStatusPatch): Boolean {
        val actual = json.readTree(Serialization.asJson(pod.status ?: return false))
        return covers(actual, patch.toTree().get("status"))
    }

    private fun covers(actual: JsonNode?, wanted: JsonNode): Boolean =
        when {
            wanted.isNull -> actual == null || actual.isNull || actual.isMissingNode
            actual == null -> false
            wanted.isObject -> actual.isObject && wanted.properties().all { (key, field) -> covers(actual[key], field) }
            wanted.isArray -> actual.isArray && wanted.all { entry -> actual.any { covers(it, entry) } }
            else -> actual.isValueNode && actual.asText() == wanted.asText()
        }
}
