package dev.danki.cli

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus

/**
 * Where the training a `danki train` asked for stands, read from the AotCache alone. Only a status
 * whose `trainRequest` is the value this run wrote speaks for this request: anything else is an
 * earlier training, whose Ready or Failed says nothing about ours.
 */
sealed interface TrainingProgress {
    /** Not decided yet; [what] says what is going on, for the progress line. */
    data class Waiting(
        val what: String,
    ) : TrainingProgress

    /** The requested training wrote a cache, now given to new pods. */
    data class Ready(
        val status: AotCacheStatus,
    ) : TrainingProgress

    /** The requested training ended without a cache: `Failed`, or `Unsupported` (a JVM older than JDK 24). */
    data class Ended(
        val status: AotCacheStatus,
    ) : TrainingProgress

    companion object {
        fun of(cache: AotCache?, requested: String): TrainingProgress {
            val status = cache?.status ?: return Waiting("no AotCache status yet (is the danki operator running?)")
            val pod = status.trainingPod?.let { " (pod $it)" } ?: ""
            if (status.trainRequest != requested) {
                return if (status.phase == AotCache.PHASE_TRAINING) {
                    Waiting("an earlier training is still running$pod; ours starts after it")
                } else {
                    Waiting("waiting for the operator to start the training (cache is ${status.phase})")
                }
            }
            return when (status.phase) {
                AotCache.PHASE_READY -> Ready(status)
                AotCache.PHASE_FAILED, AotCache.PHASE_UNSUPPORTED -> Ended(status)
                else -> Waiting("${status.phase ?: "starting"}$pod")
            }
        }
    }
}
