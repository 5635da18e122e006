package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class WarmupSwitchTest {
    @Test
    fun `the opt-in annotation has four states`() {
        WarmupSwitch.of(null) shouldBe WarmupSwitch.ABSENT
        WarmupSwitch.of(emptyMap()) shouldBe WarmupSwitch.ABSENT
        WarmupSwitch.of(mapOf(Annotations.WARMUP to "enabled")) shouldBe WarmupSwitch.ENABLED
        WarmupSwitch.of(mapOf(Annotations.WARMUP to "disabled")) shouldBe WarmupSwitch.DISABLED
        WarmupSwitch.of(mapOf(Annotations.WARMUP to "Enabled")) shouldBe WarmupSwitch.INVALID
        WarmupSwitch.of(mapOf(Annotations.WARMUP to "true")) shouldBe WarmupSwitch.INVALID
    }

    @Test
    fun `an opted-in namespace turns on its Deployments that do not say otherwise`() {
        val optedIn = mapOf(Keys.NAMESPACE_OPT_IN_LABEL to "enabled")

        fun deployment(warmup: String?) =
            DeploymentBuilder()
                .withNewMetadata()
                .withName("exam")
                .apply { if (warmup != null) addToAnnotations(Annotations.WARMUP, warmup) }
                .endMetadata()
                .build()

        WarmupSwitch.of(deployment(null), optedIn) shouldBe WarmupSwitch.ENABLED
        WarmupSwitch.of(deployment("disabled"), optedIn) shouldBe WarmupSwitch.DISABLED
        WarmupSwitch.of(deployment("enabeld"), optedIn) shouldBe WarmupSwitch.INVALID
        WarmupSwitch.of(null, optedIn) shouldBe WarmupSwitch.ABSENT
        WarmupSwitch.of(deployment(null), mapOf(Keys.NAMESPACE_OPT_IN_LABEL to "true")) shouldBe WarmupSwitch.ABSENT
        WarmupSwitch.of(deployment(null), emptyMap()) shouldBe WarmupSwitch.ABSENT
        WarmupSwitch.of(deployment("enabled"), emptyMap()) shouldBe WarmupSwitch.ENABLED
    }
}
