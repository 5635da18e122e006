package dev.danki.operator.aot

import dev.danki.operator.config.AotSettings
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheSpec
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.ApiStatus
import dev.danki.operator.kube.Cache
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Owners
import dev.danki.operator.kube.ServerSideApply
import io.fabric8.kubernetes.api.model.Condition
import io.fabric8.kubernetes.api.model.ConditionBuilder
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import java.time.Instant

/**
 * A Deployment's AotCache (owned by the Deployment) and its claim (owned by the AotCache), so both go
 * with the Deployment; and the AotCache's status, which only danki writes.
 */
class AotStore(
    private val client: KubernetesClient,
    private val settings: AotSettings,
    /** danki's claims as the informer has them: a reconcile reads no claim from the API server. */
    private val claims: Cache<PersistentVolumeClaim>,
) {
    /**
     * The Deployment's AotCache, created with its claim when missing, and whether its claim was missing and
     * has just been made (empty): a claim that is gone is made again.
     */
    fun ensure(deployment: Deployment): Pair<AotCache, Boolean> {
        val namespace = deployment.metadata.namespace
        val name = deployment.metadata.name
        val caches = client.resources(AotCache::class.java).inNamespace(namespace)
        val new =
            AotCache().apply {
                metadata = ObjectMetaBuilder().withName(name).withNamespace(namespace).build()
                metadata.labels = mapOf(Keys.MANAGED_BY_LABEL to Keys.FIELD_MANAGER)
                metadata.ownerReferences = listOf(Owners.of(deployment))
                spec =
                    AotCacheSpec().apply {
                        this.deployment = name
                        claimName = claimNameOf(name)
                    }
            }
        val cache =
            caches.withName(name).get() ?: try {
                caches.resource(new).create()
            } catch (e: KubernetesClientException) {
                if (e.code != ApiStatus.CONFLICT) throw e
                caches.withName(name).get() ?: throw e
            }
        return cache to ensureClaim(cache)
    }

    /**
     * Creates the claim when it is missing; true when it did. A claim's spec is immutable, so an existing
     * one (Terminating too: it is made again once gone, whose event reconciles the Deployment) is left as
     * it is. An informer behind the API server costs a create refused as a conflict, nothing more.
     */
    private fun ensureClaim(cache: AotCache): Boolean {
        val name = cache.spec.claimName ?: claimNameOf(cache.metadata.name)
        if (claims.find(cache.metadata.namespace, name) != null) return false
        val claim =
            PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(cache.metadata.namespace)
                .withLabels<String, String>(mapOf(Keys.MANAGED_BY_LABEL to Keys.FIELD_MANAGER))
                .withOwnerReferences(Owners.of(cache))
                .endMetadata()
                .withNewSpec()
                .withAccessModes(settings.accessModes)
                .withStorageClassName(settings.storageClassName)
                .withNewResources()
                .addToRequests("storage", Quantity(settings.storageSize))
                .endResources()
                .endSpec()
                .build()
        return try {
            client
                .persistentVolumeClaims()
                .inNamespace(cache.metadata.namespace)
                .resource(claim)
                .create()
            true
        } catch (e: KubernetesClientException) {
            if (e.code != ApiStatus.CONFLICT) throw e
            false
        }
    }

    /** Replaces the whole status (danki owns all of it) on the status subresource. */
    fun writeStatus(cache: AotCache, status: AotCacheStatus) =
        ServerSideApply.status(client, AotCache(), cache.metadata.namespace, cache.metadata.name, status)

    /** The AotCache as the API server has it now (null: gone). */
    fun read(namespace: String, name: String): AotCache? =
        client
            .resources(AotCache::class.java)
            .inNamespace(namespace)
            .withName(name)
            .get()

    companion object {
        /** `danki-aot-<deployment>`, cut to a name's 253 characters. */
        fun claimNameOf(deployment: String) = "danki-aot-$deployment".take(MAX_NAME).trimEnd('-', '.')

        private const val MAX_NAME = 253

        /** The AotCache's one condition, `Ready`: whether new pods are given a cache, and why. */
        fun condition(ready: Boolean, reason: String, message: String): Condition =
            ConditionBuilder()
                .withType(AotCache.CONDITION_READY)
                .withStatus(if (ready) "True" else "False")
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(Instant.now().toString())
                .build()
    }
}
