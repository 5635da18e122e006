package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

class TrainingDecisionTest {
    private val jvm = JvmContainer("app", "img:1", "code1", "opts1")
    private val sha = "a".repeat(64)

    private fun ready(
        trainingFor: String = jvm.trainingKey("t1"),
        rejected: String? = null,
        retrains: Int = 0,
        request: String? = null,
    ) = AotCacheStatus().apply {
        phase = AotCache.PHASE_READY
        sha256 = sha
        lastTrainingFor = trainingFor
        rejectedSha256 = rejected
        this.retrains = retrains
        trainRequest = request
    }

    @Test
    fun `a new cache is trained`() {
        TrainingDecision.of(null, jvm, "t1", null) shouldBe TrainingDecision.CREATED
        TrainingDecision.of(AotCacheStatus(), jvm, "t1", null) shouldBe TrainingDecision.CREATED
    }

    @Test
    fun `a ready cache of the same template is left alone`() {
        TrainingDecision.of(ready(), jvm, "t1", null) shouldBe null
    }

    @Test
    fun `a changed image or JVM option retrains`() {
        TrainingDecision.of(ready(), jvm.copy(codeFingerprint = "code2"), "t1", null) shouldBe
            TrainingDecision.TEMPLATE_CHANGED
        TrainingDecision.of(ready(), jvm.copy(optionsFingerprint = "opts2"), "t1", null) shouldBe
            TrainingDecision.TEMPLATE_CHANGED
    }

    @Test
    fun `a ready cache is not retrained for a template change outside the JVM's code and options`() {
        TrainingDecision.of(ready(), jvm, "t2", null) shouldBe null
    }

    @Test
    fun `a failed training is retried on any change of the template`() {
        TrainingDecision.of(ready().apply { phase = AotCache.PHASE_FAILED }, jvm, "t2", null) shouldBe
            TrainingDecision.TEMPLATE_CHANGED
    }

    @Test
    fun `a failed or unsupported training of the same template is not retried, a changed one is`() {
        val failed = ready().apply { phase = AotCache.PHASE_FAILED }
        val unsupported = ready().apply { phase = AotCache.PHASE_UNSUPPORTED }
        TrainingDecision.of(failed, jvm, "t1", null) shouldBe null
        TrainingDecision.of(unsupported, jvm, "t1", null) shouldBe null
        TrainingDecision.of(unsupported, jvm.copy(codeFingerprint = "jdk25"), "t1", null) shouldBe
            TrainingDecision.TEMPLATE_CHANGED
    }

    @Test
    fun `a new danki-dev-aot-train value retrains, the answered one does not`() {
        TrainingDecision.of(ready(request = "t1"), jvm, "t1", "t2") shouldBe TrainingDecision.REQUESTED
        TrainingDecision.of(ready(request = "t1"), jvm, "t1", "t1") shouldBe null
        TrainingDecision.of(ready().apply { phase = AotCache.PHASE_FAILED }, jvm, "t1", "t9") shouldBe
            TrainingDecision.REQUESTED
    }

    @Test
    fun `a rejected cache is retrained, at most MAX_RETRAINS times in a row`() {
        TrainingDecision.of(ready(rejected = sha), jvm, "t1", null) shouldBe TrainingDecision.REJECTED
        TrainingDecision.of(ready(rejected = sha, retrains = TrainingDecision.MAX_RETRAINS), jvm, "t1", null) shouldBe
            null
        TrainingDecision.of(ready(rejected = "b".repeat(64)), jvm, "t1", null) shouldBe null
    }

    @Test
    fun `a ready cache whose claim was gone and made again, empty, is retrained`() {
        TrainingDecision.of(ready(), jvm, "t1", null, claimCreated = true) shouldBe TrainingDecision.CLAIM_RECREATED
        // a failed cache has no file to lose: its training waits for a change of the template, as before
        val failed = ready().apply { phase = AotCache.PHASE_FAILED }
        TrainingDecision.of(failed, jvm, "t1", null, claimCreated = true) shouldBe null
    }

    @Test
    fun `a training left in progress is resumed`() {
        TrainingDecision.of(ready().apply { phase = AotCache.PHASE_TRAINING }, jvm, "t1", null) shouldBe
            TrainingDecision.RESUMED
    }

    @Test
    fun `retrains count up on refusals only`() {
        TrainingDecision.retrainsAfter(ready(retrains = 1), TrainingDecision.REJECTED) shouldBe 2
        TrainingDecision.retrainsAfter(ready(retrains = 1), TrainingDecision.RESUMED) shouldBe 1
        TrainingDecision.retrainsAfter(ready(retrains = 1), TrainingDecision.TEMPLATE_CHANGED) shouldBe 0
    }
}
