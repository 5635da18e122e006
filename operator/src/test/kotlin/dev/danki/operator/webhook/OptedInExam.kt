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

    /** The lookup the webhook builds, over [reads] for both the cache and the API server. */
    fun lookup(metrics: WarmupMetrics) = OptInLookup(reads, reads, metrics, namespaceOptIn = false)
}
