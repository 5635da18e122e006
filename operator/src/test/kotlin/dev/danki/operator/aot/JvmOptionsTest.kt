package dev.danki.operator.aot

import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.EnvVarBuilder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class JvmOptionsTest {
    private val option = "-XX:AOTCache=/c/app.aot"

    private fun env(name: String, value: String) = EnvVar(name, value, null)

    private fun fromConfigMap(name: String) =
        EnvVarBuilder()
            .withName(name)
            .withNewValueFrom()
            .withNewConfigMapKeyRef("jvm", "opts", false)
            .endValueFrom()
            .build()

    @Test
    fun `the user's JAVA_TOOL_OPTIONS gets the option appended, in place`() {
        val result =
            JvmOptions.append(
                listOf(env("PORT", "8080"), env("JAVA_TOOL_OPTIONS", "-Xmx1g "), env("A", "b")),
                false,
                option,
            )
        result shouldBe listOf(env("PORT", "8080"), env("JAVA_TOOL_OPTIONS", "-Xmx1g $option"), env("A", "b"))
    }

    @Test
    fun `without JAVA_TOOL_OPTIONS in the pod, JDK_JAVA_OPTIONS, so the image's own JAVA_TOOL_OPTIONS stays`() {
        JvmOptions.append(listOf(env("PORT", "8080")), false, option) shouldBe
            listOf(env("PORT", "8080"), env("JDK_JAVA_OPTIONS", option))
    }

    @Test
    fun `a user's JDK_JAVA_OPTIONS is appended to`() {
        JvmOptions.append(listOf(env("JDK_JAVA_OPTIONS", "-Dx=1")), false, option) shouldBe
            listOf(env("JDK_JAVA_OPTIONS", "-Dx=1 $option"))
    }

    @Test
    fun `a value from a ConfigMap is kept under another name and referenced`() {
        val result = JvmOptions.append(listOf(fromConfigMap("JAVA_TOOL_OPTIONS")), false, option)
        result.map { it.name } shouldBe listOf("DANKI_USER_JAVA_TOOL_OPTIONS", "JAVA_TOOL_OPTIONS")
        result[0]
            .valueFrom.configMapKeyRef.name shouldBe "opts"
        result[1].value shouldBe "$(DANKI_USER_JAVA_TOOL_OPTIONS) $option"
    }

    @Test
    fun `the last of two entries of one name is the one appended to (the kubelet uses the last)`() {
        val result =
            JvmOptions.append(
                listOf(env("JAVA_TOOL_OPTIONS", "-Da"), env("JAVA_TOOL_OPTIONS", "-Db")),
                false,
                option,
            )
        result shouldBe
            listOf(env("JAVA_TOOL_OPTIONS", "-Da"), env("JAVA_TOOL_OPTIONS", "-Db $option"))
    }

    @Test
    fun `envFrom without either variable in env is refused, since it may set them and an env entry would hide it`() {
        val result = shouldThrow<JvmOptions.Refused> { JvmOptions.append(listOf(env("PORT", "8080")), true, option) }
        result.reason.contains("envFrom") shouldBe true
    }
}
