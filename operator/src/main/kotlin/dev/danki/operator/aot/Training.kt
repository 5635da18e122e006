package dev.danki.operator.aot

import dev.danki.operator.config.AotSettings
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.warmup.AttemptListener
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.TargetPod
import dev.danki.operator.warmup.WarmupAttempts
import dev.danki.operator.warmup.WarmupPlan
import dev.danki.operator.warmup.WarmupTask
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.utils.Serialization
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant

/**
 * One training of a Deployment's cache, start to end, on a thread of its own: the training pod is
 * started, warmed with the Deployment's own plan (the best training workload there is: the user's
 * requests until latency converges), and stopped cleanly, so that its JVM writes the cache; then the
 * sealing pod hashes it. Every step is bounded by the training's deadline, and the status says where
 * the training is, so that a new leader starts it again rather than trusting half of it.
 */
class Training(
    /** The training pods; one is created only while this replica leads. */
    private val pods: TrainingPodClient,
    /** The first bytes of a container's log (the operator's: [PodLogHead]), for a JVM that would not start. */
    private val logs: AotProbe.LogReader,
    private val store: AotStore,
    private val settings: AotSettings,
    private val events: EventRecorder,
    private val runnerImage: String,
    private val maxErrorRatio: Double,
    /** Where k6 runs: the operator's own for the built-in plan, runner pods for a custom flow (null: none). */
    private val attempts: WarmupAttempts,
    private val runnerAttempts: WarmupAttempts?,
) {
    private val log = LoggerFactory.getLogger(Training::class.java)

    /** What the training is for: the Deployment, its cache, its JVM container, the plan and why. */
    data class Input(
        val deployment: Deployment,
        val cache: AotCache,
        val jvm: JvmContainer,
        /** Of the whole pod template (JvmContainer.templateDigest). */
        val templateDigest: String,
        val plan: WarmupPlan,
        val cause: String,
        val trainRequest: String?,
    )

    /** A training that ends without a cache: the phase and reason it leaves, and why, for people. */
    private class Stop(
        val phase: String,
        val reason: String,
        override val message: String,
    ) : RuntimeException(message)

    fun run(input: Input) {
        val started = Instant.now()
        val deadline = started.plus(settings.trainingTimeout)
        val before = input.cache.status
        val pod = TrainingPods.training(input.deployment, input.cache, input.jvm, settings.trainingTimeout)
        val status = trainingStatus(input, before, pod.metadata.name)
        store.writeStatus(input.cache, status)
        events.normal(
            input.deployment,
            Keys.EventReasons.AOT_TRAINING_STARTED,
            "training the AOT cache (${input.cause}) in pod ${pod.metadata.name} on image ${input.jvm.image}",
        )
        try {
            start(pod, deadline)
            val up = until(pod, deadline) { ready(it) || ended(it) }
            if (up == null || !ready(up)) throw notStarted(input, up)
            val requests = warm(input, up.status.podIP, pod.metadata.name, up.metadata.uid, deadline)
            // a clean stop: SIGTERM, and the JVM writes the cache on its way out, within the grace period
            val stopped = deleteAndWait(pod, deadline)
            if (!stopped) throw Stop(AotCache.PHASE_FAILED, "Timeout", "the training pod did not stop in time")
            val (sha, size) = seal(input, deadline, before?.sha256)
            succeed(input, status, sha, size, requests, started)
        } catch (stop: Stop) {
            stopped(input, status, stop)
            runCatching { deleteAndWait(pod, Instant.now().plus(CLEANUP)) }
        }
    }

    /** A training that ends without a cache: the status and a Warning say why; the cache in use stays. */
    private fun stopped(input: Input, status: AotCacheStatus, stop: Stop) {
        val message = Messages.cut(stop.message)
        status.phase = stop.phase
        status.reason = stop.reason
        status.message = message
        val still = status.sha256?.let { "the cache $it is still given to new pods; $message" }
        status.conditions = listOf(AotStore.condition(still != null, stop.reason, still ?: message))
        store.writeStatus(input.cache, status)
        val unsupported = stop.phase == AotCache.PHASE_UNSUPPORTED
        val reason = if (unsupported) Keys.EventReasons.AOT_UNSUPPORTED else Keys.EventReasons.AOT_TRAINING_FAILED
        events.warning(input.deployment, reason, message)
        log
            .atWarn()
            .addKeyValue("namespace", input.cache.metadata.namespace)
            .addKeyValue("deployment", input.cache.metadata.name)
            .addKeyValue("reason", stop.reason)
            .addKeyValue("message", stop.message)
            .log("AOT cache training failed")
    }

    /**
     * The status while training: the cache in use stays named, with what it was made for, so pods keep
     * getting it meanwhile; the training in progress is recorded beside it.
     */
    private fun trainingStatus(input: Input, before: AotCacheStatus?, podName: String) =
        (before?.let(Serialization::clone) ?: AotCacheStatus()).apply {
            phase = AotCache.PHASE_TRAINING
            lastTrainingFor = input.jvm.trainingKey(input.templateDigest)
            trainingPod = podName
            trainRequest = input.trainRequest
            trainCause = input.cause
            retrains = TrainingDecision.retrainsAfter(before, input.cause)
            reason = input.cause
            message = "training in pod $podName"
            conditions =
                listOf(
                    if (sha256 != null) {
                        AotStore.condition(
                            true,
                            "Retraining",
                            "the cache $sha256 is given to new pods while a new one is trained",
                        )
                    } else {
                        AotStore.condition(false, "Training", "the first cache is being trained")
                    },
                )
        }

    /** Why the training pod never got ready: an old JVM says so in its first lines. */
    private fun notStarted(input: Input, pod: Pod?): Stop {
        pod ?: return Stop(AotCache.PHASE_FAILED, "PodGone", "the training pod was deleted before it was ready")
        val head = logs.head(pod.metadata.namespace, pod.metadata.name, input.jvm.name, LOG_HEAD).orEmpty()
        if (head.contains("Unrecognized VM option 'AOTCacheOutput")) {
            return Stop(
                AotCache.PHASE_UNSUPPORTED,
                "JvmTooOld",
                "the JVM of ${input.jvm.image} (container ${input.jvm.name}) does not know -XX:AOTCacheOutput: " +
                    "the AOT cache needs JDK 25 or later (one-step training, JEP 514); " +
                    "nothing else changes for this Deployment",
            )
        }
        val ended = ended(pod)
        val why = if (ended) "its JVM exited before it was ready" else "it was not ready within the training timeout"
        val tail =
            head
                .lineSequence()
                .filter { it.isNotBlank() }
                .take(
                    LOG_LINES,
                ).joinToString(" | ") { Messages.quote(it) }
        return Stop(
            AotCache.PHASE_FAILED,
            if (ended) "TrainingPodFailed" else "Timeout",
            "training pod ${pod.metadata.name}: $why" + if (tail.isNotEmpty()) " ($tail)" else "",
        )
    }

    /** The Deployment's warm-up plan against the training pod; the requests it answered. */
    private fun warm(input: Input, ip: String, podName: String, uid: String, deadline: Instant): Long {
        val namespace = input.cache.metadata.namespace
        val plan = input.plan
        val request =
            K6Request(
                runName = "$namespace.$podName",
                baseUrl = "http://$ip:${plan.port}",
                plan = plan,
                jitMetricsUrl = plan.jitMetrics?.let { "http://$ip:${it.port}${it.path}" },
                target = TargetPod(namespace, podName, uid, ip),
                deadline = minOf(deadline, Instant.now().plus(plan.timeout)),
                maxErrorRatio = maxErrorRatio,
            )
        // a custom flow runs in runner pods, which aotCache.enabled always has (it needs runner.enabled)
        val where =
            if (plan.script ==
                null
            ) {
                attempts
            } else {
                checkNotNull(runnerAttempts) { "a custom flow needs runner pods" }
            }
        val result = where.run(request, WarmupTask("$namespace/$podName", "$namespace/$podName"), Quiet)
        return when (val outcome = result.outcome) {
            is K6Outcome.Completed -> outcome.summary.totalRequests

            is K6Outcome.Failed -> throw Stop(
                AotCache.PHASE_FAILED,
                "WarmupFailed",
                "the warm-up of the training pod failed: ${outcome.reason}: ${outcome.message}",
            )

            // the operator is stopping: the status stays Training, so the next leader starts it again
            K6Outcome.Cancelled -> throw InterruptedException("the training's warm-up was cancelled")
        }
    }

    /** Runs the sealing pod; the digest and size it reports. */
    private fun seal(input: Input, deadline: Instant, keep: String?): Pair<String, Long> {
        val pod = TrainingPods.sealing(input.cache, input.jvm.codeFingerprint, runnerImage, keep)
        start(pod, deadline)
        try {
            val message =
                until(pod, deadline) { ended(it) }
                    ?.status
                    ?.containerStatuses
                    .orEmpty()
                    .firstOrNull { it.name == TrainingPods.SEALER }
                    ?.state
                    ?.terminated
                    ?.message
            return TrainingPods.sealedOf(message)
                ?: throw Stop(
                    AotCache.PHASE_FAILED,
                    "SealFailed",
                    "sealing pod ${pod.metadata.name}: ${message?.let(Messages::quote) ?: "it did not finish"}",
                )
        } finally {
            runCatching { deleteAndWait(pod, Instant.now().plus(CLEANUP)) }
        }
    }

    private fun succeed(
        input: Input,
        status: AotCacheStatus,
        sha: String,
        size: Long,
        requests: Long,
        started: Instant,
    ) {
        val took = Duration.between(started, Instant.now())
        status.phase = AotCache.PHASE_READY
        status.sha256 = sha
        status.sizeBytes = size
        status.file = TrainingPods.cacheFile(sha)
        status.container = input.jvm.name
        status.image = input.jvm.image
        status.codeFingerprint = input.jvm.codeFingerprint
        status.optionsFingerprint = input.jvm.optionsFingerprint
        status.trainedAt = Instant.now().toString()
        status.trainingRequests = requests
        status.reason = "Trained"
        status.message = "trained on $requests warm-up requests in ${took.seconds}s (${input.cause})"
        status.conditions = listOf(AotStore.condition(true, "Trained", status.message!!))
        store.writeStatus(input.cache, status)
        events.normal(
            input.deployment,
            Keys.EventReasons.AOT_TRAINED,
            "AOT cache $sha (${size / MIB} MiB) ${status.message}",
        )
        log
            .atInfo()
            .addKeyValue("namespace", input.cache.metadata.namespace)
            .addKeyValue("deployment", input.cache.metadata.name)
            .addKeyValue("sha256", sha)
            .addKeyValue("bytes", size)
            .addKeyValue("requests", requests)
            .addKeyValue("seconds", took.seconds)
            .log("AOT cache trained")
    }

    /** Creates [pod]; one of the same name is what a stopped replica left, so it starts again from nothing. */
    private fun start(pod: Pod, deadline: Instant) {
        if (pods.get(pod) != null) deleteAndWait(pod, deadline)
        pods.create(pod)
    }

    /**
     * The pod once [done] holds for it (or it is gone: null), or the last seen one at [deadline]. Read from
     * the API server once a second: a training makes two pods a Deployment and is rare, so a watch of its
     * own would cost more than it saves.
     */
    private fun until(pod: Pod, deadline: Instant, done: (Pod?) -> Boolean): Pod? {
        while (true) {
            val seen = pods.get(pod)
            if (done(seen) || !Instant.now().isBefore(deadline)) return seen
            Thread.sleep(POLL.toMillis())
        }
    }

    /** Deletes the pod with its own grace period and waits until it is gone, at most until [deadline]. */
    private fun deleteAndWait(pod: Pod, deadline: Instant): Boolean {
        pods.delete(pod)
        return until(pod, deadline) { it == null } == null
    }

    /** The training reports no progress to a WarmupRun: its status is the AotCache's. */
    private object Quiet : AttemptListener {
        override fun attemptStarted(attempt: Int) = Unit

        override fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration) = Unit
    }

    private companion object {
        const val LOG_HEAD = 16 * 1024
        const val LOG_LINES = 3
        const val MIB = 1024 * 1024
        val CLEANUP: Duration = Duration.ofSeconds(30)
        val POLL: Duration = Duration.ofSeconds(1)

        fun ready(pod: Pod?): Boolean = pod != null && PodGate.containersReady(pod) != null

        /** The pod's phase is final, or one of its containers ended (restartPolicy Never: it stays ended). */
        fun ended(pod: Pod?): Boolean =
            pod == null || pod.status?.phase in setOf("Succeeded", "Failed") ||
                pod.status
                    ?.containerStatuses
                    .orEmpty()
                    .any { it.state?.terminated != null }
    }
}
