package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class ContainerEnvironmentTest {
    private val pod: Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("shop")
            .withUid("u-1")
            .addToLabels("app", "web")
            .endMetadata()
            .withNewSpec()
            .withNodeName("danki0-node")
            .endSpec()
            .build()
    private val values =
        ConfigValueSource { kind, _, name, key ->
            if (kind == "ConfigMap" && name == "cfg" &&
                key == "k"
            ) {
                "from-cm"
            } else {
                null
            }
        }
    private val environment = ContainerEnvironment(pod, "198.18.0.7", "198.18.0.1", values)

    @Suppress("LongMethod") // one builder line per kind of env source
    @Test
    fun `field refs, plain values, config map keys and expansion`() {
        val container =
            ContainerBuilder()
                .addNewEnv()
                .withName(
                    "POD",
                ).withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName(
                    "NS",
                ).withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.namespace")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName(
                    "IP",
                ).withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("status.podIP")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName(
                    "APP",
                ).withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.labels['app']")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("CM")
                .withNewValueFrom()
                .withNewConfigMapKeyRef("k", "cfg", false)
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("URL")
                .withValue("http://$(IP):$(PORT)/$$(LITERAL)")
                .endEnv()
                .addNewEnv()
                .withName("PORT")
                .withValue("8081")
                .endEnv()
                .build()
        val env = environment.build(container, mapOf("PORT" to "8080", "BASE" to "b"))
        assertEquals("web-1", env["POD"])
        assertEquals("shop", env["NS"])
        assertEquals("198.18.0.7", env["IP"])
        assertEquals("web", env["APP"])
        assertEquals("from-cm", env["CM"])
        // expansion sees variables defined before, including the base; $$ escapes
        assertEquals("http://198.18.0.7:8080/$(LITERAL)", env["URL"])
        assertEquals("8081", env["PORT"])
        assertEquals("b", env["BASE"])
    }

    @Test
    fun `missing config map key is a clear error, unless optional`() {
        val required =
            ContainerBuilder()
                .addNewEnv()
                .withName(
                    "X",
                ).withNewValueFrom()
                .withNewConfigMapKeyRef("k", "nope", false)
                .endValueFrom()
                .endEnv()
                .build()
        val error = assertFailsWith<ContainerConfigException> { environment.build(required, emptyMap()) }
        assertContains(error.message!!, "configmap nope key k not found")
        val optional =
            ContainerBuilder()
                .addNewEnv()
                .withName(
                    "X",
                ).withNewValueFrom()
                .withNewConfigMapKeyRef("k", "nope", true)
                .endValueFrom()
                .endEnv()
                .build()
        assertEquals(emptyMap(), environment.build(optional, emptyMap()))
    }

    @Test
    fun `unsupported field ref is a clear error`() {
        val container =
            ContainerBuilder()
                .addNewEnv()
                .withName(
                    "X",
                ).withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("spec.hostname")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .build()
        val error = assertFailsWith<ContainerConfigException> { environment.build(container, emptyMap()) }
        assertContains(error.message!!, "spec.hostname")
    }
}
