package dev.danki.operator.it

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
import io.fabric8.kubernetes.client.KubernetesClient
import java.io.File

/**
 * danki's CRDs as the operator's build generated them (fabric8 crd-generator), for the test API server
 * and the E2E cluster; the file names follow from the classes.
 */
object GeneratedCrds {
    private val kinds = listOf(WarmupRun::class.java, WarmupHistory::class.java, AotCache::class.java)

    fun load(client: KubernetesClient, repo: File): List<CustomResourceDefinition> =
        kinds.map { kind ->
            val file =
                File(repo, "operator/target/classes/META-INF/fabric8/${HasMetadata.getFullResourceName(kind)}-v1.yml")
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .load(file)
                .item()
        }
}
