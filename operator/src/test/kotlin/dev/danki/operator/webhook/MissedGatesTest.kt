package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.FieldsV1
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

class MissedGatesTest {
    private fun entry(time: String, fieldSet: String, key: String) =
        ManagedFieldsEntry().apply {
            manager = "kubectl"
            this.time = time
            val owned = mapOf(fieldSet to mapOf("f:$key" to emptyMap<String, Any>()))
            fieldsV1 = FieldsV1().apply { setAdditionalProperty("f:metadata", owned) }
        }

    private val labelledAt = "2026-11-23T08:00:00Z"
    private val namespace =
        NamespaceBuilder()
            .withNewMetadata()
            .withName("exams")
            .addToLabels(Keys.NAMESPACE_OPT_IN_LABEL, "enabled")
            .withManagedFields(
                entry("2026-11-23T07:00:00Z", "f:labels", "kubernetes.io/metadata.name"),
                entry(labelledAt, "f:labels", Keys.NAMESPACE_OPT_IN_LABEL),
            ).endMetadata()
            .build()

    @Test
    fun `a Deployment's own annotation dates its opt-in`() {
        val annotatedAt = "2026-11-23T09:00:00Z"
        val deployment =
            DeploymentBuilder()
                .withNewMetadata()
                .withName("exam")
                .addToAnnotations(Keys.Annotations.WARMUP, "enabled")
                .withManagedFields(
                    entry("2026-11-23T06:00:00Z", "f:labels", "app"),
                    entry(annotatedAt, "f:annotations", Keys.Annotations.WARMUP),
                ).endMetadata()
                .build()

        MissedGates.optedInAt(deployment, namespace) shouldBe Instant.parse(annotatedAt)
    }

    @Test
    fun `without an annotation, the namespace label dates it`() {
        val deployment =
            DeploymentBuilder()
                .withNewMetadata()
                .withName("exam")
                .endMetadata()
                .build()

        MissedGates.optedInAt(deployment, namespace) shouldBe Instant.parse(labelledAt)
        MissedGates.optedInAt(deployment, null) shouldBe null
    }

    private fun pod(created: String?, readySince: String? = null) =
        PodBuilder()
            .withNewMetadata()
            .withName("exam-abc123-x1")
            .withCreationTimestamp(created)
            .endMetadata()
            .withNewStatus()
            .apply {
                readySince?.let {
                    addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .withLastTransitionTime(it)
                        .endCondition()
                }
            }.endStatus()
            .build()

    @Test
    fun `a pod of the opt-in's own second counts as missed, the cluster's times being whole seconds`() {
        val optedIn = Instant.parse("2026-11-23T09:00:00Z")

        MissedGates.missed(pod("2026-11-23T08:59:59Z"), optedIn) shouldBe false
        MissedGates.missed(pod("2026-11-23T09:00:00Z"), optedIn) shouldBe true
        MissedGates.missed(pod("2026-11-23T09:00:01Z"), optedIn) shouldBe true
    }

    @Test
    fun `when a time is unknown the pod is reported, a false report costing an Event and a missed one a cold pod`() {
        MissedGates.missed(pod(null), Instant.parse("2026-11-23T09:00:00Z")) shouldBe true
        MissedGates.missed(pod("2026-11-23T09:00:00Z"), null) shouldBe true
    }

    @Test
    fun `a pod serves from its Ready transition`() {
        val now = Instant.parse("2026-11-23T09:10:00Z")

        MissedGates.servedFor(pod("2026-11-23T09:00:00Z"), now) shouldBe Duration.ZERO
        MissedGates.servedFor(pod("2026-11-23T09:00:00Z", readySince = "2026-11-23T09:07:00Z"), now) shouldBe
            Duration.ofMinutes(3)
    }
}
