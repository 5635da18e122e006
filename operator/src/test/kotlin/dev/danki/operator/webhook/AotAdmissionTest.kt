package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.aot.AotFixtures
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.fabric8.kubernetes.client.utils.KubernetesSerialization
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant
import java.util.Base64

/** The AOT cache through the admission path: only warmed pods get it, next to the gate, as one JSON patch. */
class AotAdmissionTest {
    private val metrics = WarmupMetrics()
    private val json = ObjectMapper()

    /** The container the AdmissionReview below sends. */
    private val sent = ContainerBuilder().withName("app").withImage("exam").build()

    private fun deployment(warmup: String): Deployment =
        DeploymentBuilder(AotFixtures.deployment())
            .editMetadata()
            .addToAnnotations(Keys.Annotations.WARMUP, warmup)
            .endMetadata()
            .build()

    private fun admission(
        deployment: Deployment,
        cache: AotCache?,
        claim: PersistentVolumeClaim? = PersistentVolumeClaimBuilder().withNewMetadata().endMetadata().build(),
    ): PodAdmission {
        val reads =
            object : OptInLookup.Reads {
                override fun deployment(namespace: String, name: String) = deployment.takeIf { name == "exam" }

                override fun namespaceLabels(namespace: String) = emptyMap<String, String>()
            }
        val aot =
            AotAdmission(
                AotFixtures.RUNNER,
                { ns, name -> cache.takeIf { ns == "shop" && name == "exam" } },
                { _, name -> claim.takeIf { name == cache?.spec?.claimName } },
            )
        val lookup = OptInLookup(reads, reads, metrics, namespaceOptIn = false)
        return PodAdmission(metrics, lookup, KubernetesSerialization(), aot)
    }

    /** The JSON patch answered for a pod of `shop/exam` (empty: none). */
    private fun patchOf(admission: PodAdmission): List<Map<*, *>> {
        val body =
            """
            {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
             "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"shop",
             "object":{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"exam-5d8f-",
             "labels":{"pod-template-hash":"5d8f"},"ownerReferences":[{"apiVersion":"apps/v1",
             "kind":"ReplicaSet","name":"exam-5d8f","uid":"r","controller":true}]},
             "spec":{"containers":[{"name":"app","image":"exam"}]}}}}
            """.trimIndent()
        val response = json.readValue(admission.review(body.toByteArray()), Map::class.java)["response"] as Map<*, *>
        response["allowed"] shouldBe true
        val patch = response["patch"] as String? ?: return emptyList()
        return json.readValue(Base64.getDecoder().decode(patch), List::class.java).map { it as Map<*, *> }
    }

    @Test
    fun `a warmed pod with a ready cache gets the gate, the label and the cache in one patch`() {
        val patch = patchOf(admission(deployment("enabled"), AotFixtures.cache(trainedOn = sent)))

        patch.map { it["path"] } shouldBe
            listOf(
                "/spec/readinessGates",
                "/metadata/labels/danki.dev~1warmup",
                "/metadata/annotations",
                "/spec/volumes",
                "/spec/volumes/-",
                "/spec/initContainers",
                "/spec/containers/0/volumeMounts",
                "/spec/containers/0/env",
            )
        // as the API server reads it: fabric8's types serialized, quantities as strings
        patch[3]["value"] shouldBe
            listOf(
                mapOf(
                    "name" to "danki-aot-store",
                    "persistentVolumeClaim" to mapOf("claimName" to "danki-aot-exam", "readOnly" to true),
                ),
            )
        patch[4]["value"] shouldBe mapOf("name" to "danki-aot", "emptyDir" to mapOf("sizeLimit" to "1018Mi"))
        patch[7]["value"] shouldBe
            listOf(mapOf("name" to "JDK_JAVA_OPTIONS", "value" to "-XX:AOTCache=/var/run/danki/aot/app.aot"))
    }

    @Test
    fun `a pod that is not warmed gets no cache, and one without a cache yet only the gate`() {
        patchOf(admission(deployment("disabled"), AotFixtures.cache(trainedOn = sent))).shouldBeEmpty()
        patchOf(admission(deployment("enabled"), null)).map { it["path"] } shouldBe
            listOf("/spec/readinessGates", "/metadata/labels/danki.dev~1warmup")
    }

    @Test
    fun `a pod whose cache's claim is gone, or being deleted, starts without the cache, not Pending on the claim`() {
        val cache = AotFixtures.cache(trainedOn = sent)
        val deleting =
            PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withDeletionTimestamp(
                    "2026-11-27T13:00:00Z",
                ).endMetadata()
                .build()
        for (claim in listOf(null, deleting)) {
            patchOf(admission(deployment("enabled"), cache, claim)).map { it["path"] } shouldBe
                listOf("/spec/readinessGates", "/metadata/labels/danki.dev~1warmup")
        }
    }

    @Test
    fun `a refusal is logged once per Deployment and reason, and again after an hour`() {
        var now = Instant.parse("2026-11-26T12:00:00Z")
        val aot = AotAdmission(AotFixtures.RUNNER, { _, _ -> null }, { _, _ -> null }, now = { now })

        aot.refused("shop", "exam", "envFrom") shouldBe true
        aot.refused("shop", "exam", "envFrom") shouldBe false
        aot.refused("shop", "other", "envFrom") shouldBe true
        aot.refused("shop", "exam", "something else") shouldBe true
        now = now.plus(AotAdmission.REPEAT).plus(Duration.ofSeconds(1))
        aot.refused("shop", "exam", "envFrom") shouldBe true
    }
}
