package dev.danki.operator.aot

import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import io.fabric8.kubernetes.api.model.Pod
import org.slf4j.LoggerFactory

/**
 * Reports, once per warm-up, what a pod made of the AOT cache it was given: the text for its
 * WarmupRun, an Event on the pod, and (for a cache its JVM refused) a retraining.
 */
class AotReport(
    private val probe: AotProbe,
    private val events: EventRecorder,
    private val trainer: AotTrainer,
) {
    private val log = LoggerFactory.getLogger(AotReport::class.java)

    /** The WarmupRun's `aotCache` text for [pod]; null when the pod was given no cache. */
    fun of(pod: Pod): String? {
        val outcome = probe.outcomeOf(pod) ?: return null
        val sha = pod.metadata.annotations[Keys.Aot.CACHE_ANNOTATION].orEmpty()
        when (outcome.kind) {
            Keys.Aot.USED -> {
                events.normal(pod, Keys.EventReasons.AOT_USED, "the JVM started from the AOT cache $sha")
            }

            Keys.Aot.ABSENT -> {
                events.warning(pod, Keys.EventReasons.AOT_ABSENT, "no AOT cache: ${outcome.reason}")
            }

            Keys.Aot.REJECTED -> {
                events.warning(
                    pod,
                    Keys.EventReasons.AOT_REJECTED,
                    "the JVM refused the AOT cache $sha: ${outcome.reason}",
                )
                PodOwners
                    .deploymentOf(
                        pod,
                    )?.let { trainer.rejected(pod.metadata.namespace, it, sha, outcome.reason.orEmpty()) }
            }
        }
        log
            .atInfo()
            .addKeyValue("namespace", pod.metadata.namespace)
            .addKeyValue("pod", pod.metadata.name)
            .addKeyValue("sha256", sha)
            .addKeyValue("aotCache", outcome.toString())
            .log("AOT cache outcome")
        return outcome.toString()
    }
}
