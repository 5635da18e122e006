package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.api.model.Pod
import org.slf4j.LoggerFactory
import java.util.Base64

/**
 * Answers one AdmissionReview for a pod CREATE: always allowed (danki never blocks a pod), with
 * [PodMutation]'s patch when its Deployment, found through the ReplicaSet owner by [lookup], is opted in.
 */
class PodAdmission(
    private val metrics: WarmupMetrics,
    private val lookup: OptInLookup,
) {
    private val log = LoggerFactory.getLogger(PodAdmission::class.java)
    private val json = ObjectMapper()

    fun review(body: ByteArray): ByteArray {
        val started = System.nanoTime()
        val request = json.readTree(body).path("request")
        val uid = request.path("uid").asText()
        val namespace = request.path("namespace").asText()
        val (patch, how) = patchOf(request, namespace)
        val response =
            mutableMapOf<String, Any>("uid" to uid, "allowed" to true).apply {
                if (patch.isNotEmpty()) {
                    put("patchType", "JSONPatch")
                    put("patch", Base64.getEncoder().encodeToString(json.writeValueAsBytes(patch)))
                }
            }
        metrics.podAdmitted(if (patch.isEmpty()) WarmupMetrics.ADMITTED_UNCHANGED else WarmupMetrics.ADMITTED_GATED)
        how?.let { metrics.admissionAnswered(it, (System.nanoTime() - started) / NANOS) }
        return json.writeValueAsBytes(
            mapOf("apiVersion" to "admission.k8s.io/v1", "kind" to "AdmissionReview", "response" to response),
        )
    }

    /** The patch, and how the pod's Deployment was found (null: not a Deployment's pod, nothing looked up). */
    private fun patchOf(request: JsonNode, namespace: String): Pair<List<Map<String, Any>>, String?> {
        // only pod CREATE is registered; anything else is answered unchanged
        if (request.path("operation").asText() != "CREATE" || request.path("kind").path("kind").asText() != "Pod") {
            return emptyList<Map<String, Any>>() to null
        }
        val pod = json.treeToValue(request.path("object"), Pod::class.java)
        val deploymentName = PodOwners.deploymentOf(pod) ?: return emptyList<Map<String, Any>>() to null
        val found = lookup.find(namespace, deploymentName)
        val patch = PodMutation.patchFor(pod, found.deployment, found.namespaceLabels)
        if (patch.isNotEmpty()) {
            log
                .atDebug()
                .addKeyValue("namespace", namespace)
                .addKeyValue("deployment", deploymentName)
                .addKeyValue("pod", pod.metadata?.name ?: pod.metadata?.generateName)
                .addKeyValue("lookup", found.how)
                .log("pod gated at admission")
        }
        return patch to found.how
    }

    private companion object {
        const val NANOS = 1e9
    }
}
