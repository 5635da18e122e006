package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

class UnknownAnnotationsTest {
    @Test
    fun `a typo of a key is named with the closest known key`() {
        UnknownAnnotations.of(mapOf("danki.dev/warmpu" to "enabled"), null) shouldBe
            listOf("unknown annotation danki.dev/warmpu; did you mean danki.dev/warmup?")
        UnknownAnnotations.of(mapOf("danki.dev/timout" to "2m"), null) shouldBe
            listOf("unknown annotation danki.dev/timout; did you mean danki.dev/timeout?")
        UnknownAnnotations.of(mapOf("danki.dev/failure_policy" to "closed"), null).single() shouldContain
            "did you mean danki.dev/failure-policy?"
    }

    @Test
    fun `a key unlike any known one is named without a guess`() {
        UnknownAnnotations.of(mapOf("danki.dev/completely-different" to "x"), null) shouldBe
            listOf("unknown annotation danki.dev/completely-different")
    }

    @Test
    fun `known keys and other prefixes are left alone`() {
        val known = Keys.Annotations.ON_DEPLOYMENT.associateWith { "x" }
        UnknownAnnotations.of(known + ("example.com/warmpu" to "x") + ("danki.dev" to "x"), null).shouldBeEmpty()
    }

    @Test
    fun `danki's keys on the pod template are named, since danki reads only the Deployment's`() {
        val template = mapOf(Keys.Annotations.WARMUP to "enabled", "prometheus.io/scrape" to "true")
        UnknownAnnotations.of(null, template) shouldBe
            listOf(
                "annotation danki.dev/warmup is on the pod template, where danki does not read it; " +
                    "put it on the Deployment's own metadata.annotations",
            )
    }

    @Test
    fun `a huge key is quoted short`() {
        val huge = "danki.dev/" + "x".repeat(5_000)
        UnknownAnnotations.of(mapOf(huge to "1"), null).single().length shouldBe
            "unknown annotation ".length + 120 + "... (5010 characters)".length
    }

    @Test
    fun `distance counts edits`() {
        UnknownAnnotations.distance("danki.dev/warmup", "danki.dev/warmup") shouldBe 0
        UnknownAnnotations.distance("danki.dev/warmpu", "danki.dev/warmup") shouldBe 2
        UnknownAnnotations.distance("danki.dev/rat", "danki.dev/rate") shouldBe 1
    }
}
