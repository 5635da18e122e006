package dev.danki.operator.aot

import dev.danki.operator.kube.Keys.Annotations
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

class AotAnnotationsTest {
    @Test
    fun `enabled, disabled and absent`() {
        AotAnnotations.of(mapOf(Annotations.AOT_CACHE to "enabled")) shouldBe AotAnnotations(true, null, emptyList())
        AotAnnotations.of(mapOf(Annotations.AOT_CACHE to "disabled")).enabled shouldBe false
        AotAnnotations.of(emptyMap()) shouldBe AotAnnotations(false, null, emptyList())
    }

    @Test
    fun `any other value is named, and keeps the cache off`() {
        val a = AotAnnotations.of(mapOf(Annotations.AOT_CACHE to "yes"))
        a.enabled shouldBe false
        a.problems.single() shouldContain "danki.dev/aot-cache=\"yes\": expected enabled or disabled"
    }

    @Test
    fun `a train request is a short text without control characters`() {
        AotAnnotations.of(mapOf(Annotations.AOT_TRAIN to "2026-11-26T22:00:00Z")).trainRequest shouldBe
            "2026-11-26T22:00:00Z"
        val long = AotAnnotations.of(mapOf(Annotations.AOT_TRAIN to "x".repeat(300)))
        long.trainRequest shouldBe null
        long.problems.single() shouldContain "(300 characters)"
        AotAnnotations.of(mapOf(Annotations.AOT_TRAIN to "a\nb")).trainRequest shouldBe null
    }
}
