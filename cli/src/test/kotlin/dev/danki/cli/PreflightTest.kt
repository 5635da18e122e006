package dev.danki.cli

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class PreflightTest {
    private val ref = DeploymentRef("exams", "exam")
    private val optedInNamespace = mapOf(Keys.NAMESPACE_OPT_IN_LABEL to "enabled")

    private fun deployment(warmup: String?): Deployment =
        DeploymentBuilder()
            .withNewMetadata()
            .withName("exam")
            .withNamespace("exams")
            .apply { if (warmup != null) addToAnnotations(Keys.Annotations.WARMUP, warmup) }
            .endMetadata()
            .build()

    @Test
    fun `opted in by its annotation or by its namespace's label`() {
        Preflight.requireOptedIn(ref, deployment("enabled"))
        Preflight.requireOptedIn(ref, deployment(null), optedInNamespace)
    }

    @Test
    fun `not opted in names the exact command, also when the Deployment opts out of an opted-in namespace`() {
        val optedOut = deployment("disabled")
        shouldThrow<CliFailure> { Preflight.requireOptedIn(ref, optedOut, optedInNamespace) }.exitCode shouldBe
            ExitCode.NOT_OPTED_IN
        shouldThrow<CliFailure> { Preflight.requireOptedIn(ref, deployment(null)) }.exitCode shouldBe
            ExitCode.NOT_OPTED_IN
    }
}
