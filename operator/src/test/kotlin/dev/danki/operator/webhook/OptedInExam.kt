package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder

/** Reads of a cluster with one Deployment, `shop/exam`, opted in by its annotation: the webhook tests' world. */
object OptedInExam {
    val deployment: Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("shop")
            .addToAnnotations(Keys.Annotations.WARMUP, "enabled")
            .endMetadata()
            .build()

    val reads =
        object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String) =
                deployment.takeIf { namespace == "shop" && name == "exam" }

            override fun namespaceLabels(namespace: String) = emptyMap<String, String>()
        }

    /**
     * The AdmissionReview the API server sends for a new pod of [deployment] in `shop` (owned by its
     * ReplicaSet, no containers), as the webhook's HTTPS tests post it.
     */
    fun podCreateReview(deployment: String = "exam", uid: String = "u-1"): String =
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"$uid",
         "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"shop",
         "object":{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"$deployment-5d8f-","labels":
         {"app":"$deployment","pod-template-hash":"5d8f"},"ownerReferences":[{"apiVersion":"apps/v1",
         "kind":"ReplicaSet","name":"$deployment-5d8f","uid":"r","controller":true}]},"spec":{"containers":[]}}}}
        """.trimIndent()

    /** The lookup the webhook builds, over [reads] for both the cache and the API server. */
    fun lookup(metrics: WarmupMetrics) = OptInLookup(reads, reads, metrics, namespaceOptIn = false)
}
