package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import org.slf4j.LoggerFactory
import java.util.Base64

/**
 * Answers one AdmissionReview for a pod CREATE: always allowed (danki never blocks a pod), with
 * [PodMutation]'s patch when its Deployment, found through the ReplicaSet owner in the cache, is opted in.
 */
class PodAdmission(
    private val metrics: WarmupMetrics,
    /** The Deployment from the operator's informer cache (null: unknown or not watched). */
    private val deploymentOf: (namespace: String, name: String) -> Deployment?,
    /** The namespace's labels from the cache, for its opt-in label (empty: unknown). */
    private val namespaceLabels: (namespace: String) -> Map<String, String> = { emptyMap() },
) {
    private val log = LoggerFactory.getLogger(PodAdmission::class.java)
    private val json = ObjectMapper()

    fun review(body: ByteArray): ByteArray {
        val request = json.readTree(body).path("request")
        val uid = request.path("uid").asText()
        val namespace = request.path("namespace").asText()
        val patch = patchOf(request, namespace)
        val response =
            mutableMapOf<String, Any>("uid" to uid, "allowed" to true).apply {
                if (patch.isNotEmpty()) {
                    put("patchType", "JSONPatch")
                    put("patch", Base64.getEncoder().encodeToString(json.writeValueAsBytes(patch)))
                }
            }
        metrics.podAdmitted(if (patch.isEmpty()) WarmupMetrics.ADMITTED_UNCHANGED else WarmupMetrics.ADMITTED_GATED)
        return json.writeValueAsBytes(
            mapOf("apiVersion" to "admission.k8s.io/v1", "kind" to "AdmissionReview", "response" to response),
        )
    }

    private fun patchOf(request: JsonNode, namespace: String): List<Map<String, Any>> {
        // only pod CREATE is registered; anything else is answered unchanged
        if (request.path("operation").asText() != "CREATE" || request.path("kind").path("kind").asText() != "Pod") {
            return emptyList()
        }
        val pod = json.treeToValue(request.path("object"), Pod::class.java)
        val deployment = PodOwners.deploymentOf(pod)?.let { deploymentOf(namespace, it) }
        val patch = PodMutation.patchFor(pod, deployment, namespaceLabels(namespace))
        if (patch.isNotEmpty()) {
            log
                .atDebug()
                .addKeyValue("namespace", namespace)
                .addKeyValue("deployment", deployment?.metadata?.name)
                .addKeyValue("pod", pod.metadata?.name ?: pod.metadata?.generateName)
                .log("pod gated at admission")
        }
        return patch
    }
}
