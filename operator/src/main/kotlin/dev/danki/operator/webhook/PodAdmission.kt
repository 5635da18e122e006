package dev.danki.operator.webhook

import dev.danki.operator.kube.JsonPatchAdd
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.utils.KubernetesSerialization
import org.slf4j.LoggerFactory
import java.util.Base64
import java.util.concurrent.CompletableFuture

/**
 * Answers one AdmissionReview for a pod CREATE: always allowed (danki never blocks a pod), with
 * [PodMutation]'s patch when its Deployment, found through the ReplicaSet owner by [lookup], is opted in,
 * and [aot]'s when that Deployment's pods are also given an AOT cache.
 */
class PodAdmission(
    private val metrics: WarmupMetrics,
    private val lookup: OptInLookup,
    /** The client's own: its type registry is built once per process, and takes a second or two. */
    private val serialization: KubernetesSerialization,
    /** Gives warmed pods their Deployment's AOT cache; null when the feature is off. */
    private val aot: AotAdmission? = null,
    /** Raises warmed pods' CPU at creation (`danki.dev/warmup-cpu`); null without `cpuBoost.enabled`. */
    private val boost: BoostAdmission? = null,
) {
    private val log = LoggerFactory.getLogger(PodAdmission::class.java)

    /** [reviewAsync], waited for on the calling thread. */
    fun review(body: ByteArray): ByteArray = reviewAsync(body).join()

    /**
     * The answer to [body], once its Deployment is known (at once from the cache, else when the read past
     * it answers or gives up): no thread waits for that read. Throws IllegalArgumentException, at once, for
     * a body that is not an AdmissionReview request.
     */
    fun reviewAsync(body: ByteArray): CompletableFuture<ByteArray> {
        val started = System.nanoTime()
        val request =
            requireNotNull(serialization.unmarshal(body.inputStream(), AdmissionReview::class.java)?.request) {
                "not an AdmissionReview request"
            }
        return patchOf(request).thenApply { answer(request, it, started) }
    }

    private fun answer(request: AdmissionRequest, result: Patch, started: Long): ByteArray {
        val (gated, patch, how) = result
        val response =
            AdmissionResponseBuilder()
                .withUid(request.uid)
                .withAllowed(true)
                .apply {
                    if (patch.isNotEmpty()) {
                        withPatchType(JSON_PATCH)
                        withPatch(Base64.getEncoder().encodeToString(serialization.asJson(patch).toByteArray()))
                    }
                }.build()
        metrics.podAdmitted(if (gated) WarmupMetrics.ADMITTED_GATED else WarmupMetrics.ADMITTED_UNCHANGED)
        how?.let { metrics.admissionAnswered(it, (System.nanoTime() - started) / NANOS) }
        return serialization.asJson(AdmissionReviewBuilder().withResponse(response).build()).toByteArray()
    }

    /** What the answer patches: [gated] when it adds the gate; [how] the Deployment was found (null: not looked up). */
    private data class Patch(
        val gated: Boolean,
        val ops: List<Map<String, Any>>,
        val how: String?,
    )

    private fun patchOf(request: AdmissionRequest): CompletableFuture<Patch> {
        // only pod CREATE is registered; anything else is answered unchanged
        val pod = request.`object`.takeIf { request.operation == CREATE && request.kind?.kind == POD }?.let(::asPod)
        // a pod of another workload is only labelled, when its template gated it, so that danki sees it
        val deploymentName =
            pod?.let(PodOwners::deploymentOf)
                ?: return CompletableFuture.completedFuture(
                    Patch(false, pod?.let { PodMutation.patchFor(it, null) }.orEmpty(), null),
                )
        val namespace = request.namespace.orEmpty()
        return lookup.findAsync(namespace, deploymentName).thenApply { found ->
            patchOf(namespace, deploymentName, pod, found)
        }
    }

    private fun patchOf(namespace: String, deploymentName: String, pod: Pod, found: OptInLookup.Found): Patch {
        val gate = PodMutation.patchFor(pod, found.deployment, found.namespaceLabels)
        // the boost and the cache are for the warm-up: a pod that is not warmed is given neither
        val warmed = found.deployment?.takeIf { PodMutation.warms(it, found.namespaceLabels) }
        val boosted = warmed?.let { boost?.patchFor(pod, it) }
        // the cache's patch sees the pod as the boost's leaves it (both add annotations)
        val cache = warmed?.let { aot?.patchFor(namespace, boosted?.pod ?: pod, it) }.orEmpty()
        val extra = boosted?.ops.orEmpty() + cache
        // both ways, so that a pod that should have been gated shows how its Deployment was looked up
        log
            .atDebug()
            .addKeyValue("namespace", namespace)
            .addKeyValue("deployment", deploymentName)
            .addKeyValue("pod", pod.metadata?.name ?: pod.metadata?.generateName)
            .addKeyValue("lookup", found.how)
            .addKeyValue("found", found.deployment != null)
            .log(if (PodMutation.addsGate(gate)) "pod gated at admission" else "pod admitted without the gate")
        return Patch(PodMutation.addsGate(gate), gate + extra, found.how)
    }

    /** The API server sends the pod with its apiVersion and kind, so it arrives typed; a bare object is converted. */
    private fun asPod(sent: Any): Pod = sent as? Pod ?: serialization.convertValue(sent, Pod::class.java)

    private companion object {
        const val CREATE = "CREATE"
        const val POD = "Pod"
        const val JSON_PATCH = "JSONPatch"
        const val NANOS = 1e9
    }
}

/**
 * What the webhook adds to a pod being created, as JSON Patch operations: danki's readiness gate when the
 * pod's Deployment is opted in (by its annotation or its namespace's label), and the `danki.dev/warmup`
 * label on every pod that then carries the gate, also one its template gated. Pure: the Deployment and the
 * namespace's labels are looked up by the caller.
 */
object PodMutation {
    /**
     * The patch for [pod] of [deployment] (null: not a Deployment's pod) in a namespace with
     * [namespaceLabels]; empty when nothing is to change.
     */
    fun patchFor(
        pod: Pod,
        deployment: Deployment?,
        namespaceLabels: Map<String, String> = emptyMap(),
    ): List<Map<String, Any>> {
        val gates = pod.spec?.readinessGates
        // a gate already there (the user's template, or template mode before a switch) is left as it is
        val hasGate = gates.orEmpty().any { it.conditionType == Keys.GATE_CONDITION }
        val addGate =
            when {
                hasGate || !warms(deployment, namespaceLabels) -> null
                else -> JsonPatchAdd.toList(READINESS_GATES, gates, mapOf("conditionType" to Keys.GATE_CONDITION))
            }
        // every gated pod is labelled, whoever gated it: the operator's pod cache holds only labelled pods
        val labels = pod.metadata?.labels
        val addLabel =
            when {
                !hasGate && addGate == null -> null
                labels?.get(Keys.WARMUP_LABEL) == Keys.WARMUP_LABEL_VALUE -> null
                else -> JsonPatchAdd.toMap("/metadata/labels", labels, Keys.WARMUP_LABEL, Keys.WARMUP_LABEL_VALUE)
            }
        return listOfNotNull(addGate, addLabel)
    }

    /** Whether [patch] (of [patchFor]) adds the gate, not only the label. */
    fun addsGate(patch: List<Map<String, Any>>): Boolean =
        patch.any { (it["path"] as? String)?.startsWith(READINESS_GATES) == true }

    /**
     * Whether pods of [deployment] are warmed, so gated (by this patch or by their template): what also
     * decides whether they are given an AOT cache.
     */
    fun warms(deployment: Deployment?, namespaceLabels: Map<String, String>): Boolean =
        deployment != null && WarmupSwitch.of(deployment, namespaceLabels) == WarmupSwitch.ENABLED

    private const val READINESS_GATES = "/spec/readinessGates"
}
