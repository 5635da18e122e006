package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys.Annotations
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
}
