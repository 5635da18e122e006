package dev.danki.operator.runner

import dev.danki.operator.kube.Cache
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.RunningAttempt
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * One attempt in a runner pod: waits, on the informer cache, for the pod to end, and removes the pod
 * and its NetworkPolicy when done. The pod's own `activeDeadlineSeconds` ends it even if this
 * operator is gone.
 */
class RunnerPod(
    private val client: KubernetesClient,
    private val pods: Cache<Pod>,
    private val request: K6Request,
    private val namespace: String,
    private val name: String,
) : RunningAttempt {
    private val log = LoggerFactory.getLogger(RunnerPod::class.java)
    private val stop = CountDownLatch(1)

    private val created = Instant.now()
    private var seen = false

    @Volatile private var cancelled = false

    override fun await(): K6Outcome {
        // a little past the deadline: the pod's own deadline ends it, and its status is worth reading
        val giveUp = request.deadline.plus(AFTER_DEADLINE)
        var outcome: K6Outcome? = null
        while (outcome == null && Instant.now().isBefore(giveUp)) {
            outcome = if (cancelled) K6Outcome.Cancelled else look()
            if (outcome == null && stop.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) outcome = K6Outcome.Cancelled
        }
        return outcome ?: K6Outcome.Failed(Keys.RunConditions.REASON_TIMEOUT, "runner pod $name ran past the deadline")
    }

    /** The outcome if the pod has ended (or vanished), else null. */
    private fun look(): K6Outcome? {
        val pod = pods.get(namespace, name)
        if (pod != null) {
            seen = true
            return RunnerResult.of(pod, request.maxErrorRatio, request.phases)
        }
        val gone = seen || Duration.between(created, Instant.now()) > NEVER_SEEN
        if (!gone) return null
        return K6Outcome.Failed(Keys.RunConditions.REASON_K6_FAILED, "runner pod $name was deleted before it ended")
    }

    override fun cancel() {
        cancelled = true
        stop.countDown()
        cleanUp()
    }

    override fun cleanUp() {
        try {
            deleteRunner(client, namespace, name)
        } catch (e: KubernetesClientException) {
            // the warmed pod owns both: the garbage collector removes them with it
            log
                .atWarn()
                .addKeyValue("namespace", namespace)
                .addKeyValue("runner", name)
                .setCause(e)
                .log("runner pod not deleted")
        }
    }

    private companion object {
        const val POLL_MILLIS = 250L
        val AFTER_DEADLINE: Duration = Duration.ofSeconds(5)

        /** The informer shows a created pod within moments; far longer means it is gone. */
        val NEVER_SEEN: Duration = Duration.ofSeconds(30)
    }
}
