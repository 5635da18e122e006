package dev.danki.cli

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import org.junit.jupiter.api.Test

class TrainingProgressTest {
    private val asked = "2026-11-26T22:00:00.123Z"

    @Test
    fun `no AotCache or no status yet is waiting`() {
        TrainingProgress.of(null, asked).shouldBeInstanceOf<TrainingProgress.Waiting>()
        TrainingProgress.of(AotCache(), asked).shouldBeInstanceOf<TrainingProgress.Waiting>()
    }

    @Test
    fun `an earlier training's Ready or Failed is not ours`() {
        val earlier = "2026-11-25T10:00:00Z"

        TrainingProgress.of(cache(AotCache.PHASE_READY, earlier), asked).shouldBeInstanceOf<TrainingProgress.Waiting>()
        TrainingProgress.of(cache(AotCache.PHASE_FAILED, null), asked).shouldBeInstanceOf<TrainingProgress.Waiting>()
        val running = TrainingProgress.of(cache(AotCache.PHASE_TRAINING, earlier), asked)
        running.shouldBeInstanceOf<TrainingProgress.Waiting>().what shouldContain "earlier training"
    }

    @Test
    fun `our training is decided by its phase`() {
        TrainingProgress.of(cache(AotCache.PHASE_TRAINING, asked), asked).shouldBeInstanceOf<TrainingProgress.Waiting>()
        TrainingProgress.of(cache(AotCache.PHASE_READY, asked), asked).shouldBeInstanceOf<TrainingProgress.Ready>()
        TrainingProgress.of(cache(AotCache.PHASE_FAILED, asked), asked).shouldBeInstanceOf<TrainingProgress.Ended>()
        TrainingProgress
            .of(
                cache(AotCache.PHASE_UNSUPPORTED, asked),
                asked,
            ).shouldBeInstanceOf<TrainingProgress.Ended>()
    }

    private fun cache(phase: String, trainRequest: String?) =
        AotCache().apply {
            status =
                AotCacheStatus().also {
                    it.phase = phase
                    it.trainRequest = trainRequest
                }
        }
}
