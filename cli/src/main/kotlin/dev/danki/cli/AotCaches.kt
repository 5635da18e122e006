package dev.danki.cli

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType

/** What the CLI asks the API about a Deployment's AOT cache: is the API there, the AotCache, a new training. */
class AotCaches(
    private val reader: ClusterReader,
) {
    private val json = ObjectMapper()

    /**
     * Fails with [ExitCode.NO_CRD] when the API does not serve AotCaches. A get answers 404 both for a
     * missing object and a missing CRD, so this asks discovery, which every signed-in user may read.
     */
    fun requireServed() {
        val served = reader.call("discover $CRD") { reader.client.supports(AotCache::class.java) }
        if (served) return
        throw CliFailure(
            ExitCode.NO_CRD,
            "the AotCache CRD ($CRD) is not installed: danki was installed without aotCache.enabled",
            "turn it on: helm upgrade danki <chart> -n <danki namespace> --reuse-values " +
                "--set runner.enabled=true --set aotCache.enabled=true (docs/aot-cache.md); " +
                "or train outside the cluster with danki train --export",
        )
    }

    /** The Deployment's AotCache (named after it), or null when the operator has not made one yet. */
    fun get(ref: DeploymentRef): AotCache? =
        reader.call("get AotCache ${ref.name} in namespace ${ref.namespace}") {
            reader.client
                .resources(AotCache::class.java)
                .inNamespace(ref.namespace)
                .withName(ref.name)
                .get()
        }

    /**
     * Writes `danki.dev/aot-train=[value]` on the Deployment: a JSON merge patch of that one annotation,
     * so every other annotation stays as it is, under the CLI's field manager.
     */
    fun requestTraining(ref: DeploymentRef, value: String) {
        val patch =
            json.writeValueAsString(
                mapOf("metadata" to mapOf("annotations" to mapOf(Keys.Annotations.AOT_TRAIN to value))),
            )
        reader.call("patch deployment ${ref.name} in namespace ${ref.namespace}") {
            reader.client
                .apps()
                .deployments()
                .inNamespace(ref.namespace)
                .withName(ref.name)
                .patch(
                    PatchContext
                        .Builder()
                        .withPatchType(PatchType.JSON_MERGE)
                        .withFieldManager(Keys.CLI_FIELD_MANAGER)
                        .build(),
                    patch,
                )
        }
    }

    companion object {
        /** `aotcaches.danki.dev`, the name RBAC rules and the CRD use. */
        val CRD: String = HasMetadata.getFullResourceName(AotCache::class.java)
    }
}
