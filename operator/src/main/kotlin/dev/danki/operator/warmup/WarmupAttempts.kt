package dev.danki.operator.warmup

import dev.danki.operator.kube.BackoffPolicy
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod
import java.io.IOException
import java.time.Clock
import java.time.Duration
import java.time.Instant

/**
 * Runs k6 until one attempt succeeds, retrying failures (unreachable target, too many failed requests,
 * a k6 crash or a k6 that cannot start) with back-off, and giving up when the next attempt could not
 * finish before the deadline. A warm-up that waited in the queue until too little time was left fails
 * with `Timeout` without starting k6.
 */
class WarmupAttempts(
    private val runner: AttemptStarter,
    private val backoff: BackoffPolicy = BackoffPolicy.WARMUP_ATTEMPT,
    private val clock: Clock = Clock.systemUTC(),
) {
    fun run(request: K6Request, task: WarmupTask, listener: AttemptListener): AttemptsResult {
        if (clock.instant() + MIN_ATTEMPT > request.deadline) {
            return AttemptsResult(K6Outcome.Failed(Keys.RunConditions.REASON_QUEUE_TIMEOUT, NO_TIME_LEFT), 0)
        }
        var attempt = 0
        var first = 0L
        var started = 0L
        var final: K6Outcome? = if (task.cancelled) K6Outcome.Cancelled else null
        while (final == null) {
            attempt++
            // the wall clock, not [clock]: it is compared with k6's own Date.now() of its first request
            val attemptStart = System.currentTimeMillis()
            val outcome = attempt(request, task, listener, attempt)
            if (first == 0L) {
                first = outcome.summary?.firstRequestAtMillis ?: 0L
                started = attemptStart
            }
            final =
                when (outcome) {
                    is K6Outcome.Failed -> afterFailure(outcome, attempt, request, task, listener)
                    else -> outcome
                }
        }
        return AttemptsResult(final, attempt, first, started)
    }

    /** Null to try again after the back-off; otherwise how the warm-up ends. */
    private fun afterFailure(
        failure: K6Outcome.Failed,
        attempt: Int,
        request: K6Request,
        task: WarmupTask,
        listener: AttemptListener,
    ): K6Outcome? {
        val delay = backoff.delay(attempt)
        if (!anotherFits(failure, delay, request.deadline)) return giveUp(failure, attempt)
        listener.attemptFailed(attempt, failure, delay)
        val pausedFrom = System.nanoTime()
        if (!task.pause(delay)) return K6Outcome.Cancelled
        // the pause gave up the slot, and taking it back may have taken longer than the back-off
        val waited = Duration.ofNanos(System.nanoTime() - pausedFrom) > delay.plus(SLOT_WAIT_SLACK)
        val late = waited && clock.instant() + MIN_ATTEMPT > request.deadline
        return if (late) giveUp(failure, attempt) else null
    }

    /** A timeout leaves no time by definition; otherwise the next attempt must fit, back-off included. */
    private fun anotherFits(failure: K6Outcome.Failed, delay: Duration, deadline: Instant): Boolean =
        failure.reason != TIMEOUT && clock.instant() + delay + MIN_ATTEMPT <= deadline

    /** One k6 process from start to end; a k6 that cannot start is a failed attempt like any other. */
    private fun attempt(request: K6Request, task: WarmupTask, listener: AttemptListener, attempt: Int): K6Outcome {
        // k6 first, bookkeeping after: the time to the first request is what users wait for
        val process =
            try {
                runner.start(request)
            } catch (e: IOException) {
                listener.attemptStarted(attempt)
                return K6Outcome.Failed(Keys.RunConditions.REASON_K6_NOT_STARTED, "k6 could not start: ${e.message}")
            }
        task.process = process
        if (task.cancelled) process.cancel()
        try {
            listener.attemptStarted(attempt)
            return process.await()
        } catch (e: InterruptedException) {
            // the pool is shutting down: k6 goes with it, and the worker keeps its interrupt
            process.cancel()
            Thread.currentThread().interrupt()
            return K6Outcome.Cancelled
        } finally {
            task.process = null
            process.cleanUp()
        }
    }

    private fun giveUp(last: K6Outcome.Failed, attempts: Int): K6Outcome.Failed {
        val count = if (attempts == 1) "1 attempt" else "$attempts attempts"
        return last.copy(message = "${last.message} (gave up after $count: the timeout leaves no room for another)")
    }

    companion object {
        private const val TIMEOUT = Keys.RunConditions.REASON_TIMEOUT
        private const val NO_TIME_LEFT = "queued until too little time was left before the deadline; k6 not started"

        /** Shortest attempt worth starting: k6 start-up plus a few seconds of requests. */
        val MIN_ATTEMPT: Duration = Duration.ofSeconds(5)

        /** A pause longer than its back-off by this much waited for a slot: time to look at the deadline again. */
        private val SLOT_WAIT_SLACK: Duration = Duration.ofSeconds(1)
    }
}

/**
 * Starts one k6 attempt somewhere: a child process of the operator for the built-in plan
 * ([K6Runner]), or a runner pod in the tenant's namespace for a custom script
 * ([dev.danki.operator.runner.RunnerPods]).
 */
interface AttemptStarter {
    /** Starts the attempt; an [IOException] means it could not start at all. */
    @Throws(IOException::class)
    fun start(request: K6Request): RunningAttempt
}

/** One k6 attempt under way. */
interface RunningAttempt {
    /** Waits for the attempt to end (at most until the request's deadline) and classifies it. */
    fun await(): K6Outcome

    /** Stops the attempt now; [await] then answers [K6Outcome.Cancelled]. */
    fun cancel()

    /** Removes what the attempt left behind (files, a runner pod); safe to repeat. */
    fun cleanUp()
}

/** Callbacks so the caller can record each attempt on the WarmupRun. */
interface AttemptListener {
    fun attemptStarted(attempt: Int)

    fun attemptFailed(attempt: Int, failure: K6Outcome.Failed, retryIn: Duration)
}

/**
 * The end of all attempts of one warm-up. [firstRequestAtMillis] is the first attempt's first request
 * and [k6StartedAtMillis] the moment its k6 process was started (epoch ms; 0: none).
 */
data class AttemptsResult(
    val outcome: K6Outcome,
    val attempts: Int,
    val firstRequestAtMillis: Long = 0,
    val k6StartedAtMillis: Long = 0,
) {
    /** k6's own start-up: process start to its first request, of the first attempt (null: unknown). */
    val k6StartupMillis: Long?
        get() = (firstRequestAtMillis - k6StartedAtMillis).takeIf { firstRequestAtMillis > 0 && k6StartedAtMillis > 0 }
}

/** How one k6 attempt ended. */
sealed interface K6Outcome {
    /** What k6 reported, when it got as far as writing a summary. */
    val summary: K6Summary? get() = null

    data class Completed(
        override val summary: K6Summary,
    ) : K6Outcome

    /** [reason] is a WarmupRun condition reason from Keys.RunConditions: `K6Failed`, `TooManyErrors` or `Timeout`. */
    data class Failed(
        val reason: String,
        val message: String,
        override val summary: K6Summary? = null,
    ) : K6Outcome

    data object Cancelled : K6Outcome
}

/** Everything one k6 attempt needs: where to send, what, and how long it may take. */
data class K6Request(
    val runName: String,
    val baseUrl: String,
    val plan: WarmupPlan,
    /** Hard stop: k6 is killed at this moment, and told to stop itself a little before. */
    val deadline: Instant,
    val maxErrorRatio: Double,
    /** The pod's JVM metrics page when the plan names one; k6 scrapes it for the JIT stop rule. */
    val jitMetricsUrl: String? = null,
    /** The pod being warmed; a runner pod is created beside it and may reach only it. */
    val target: TargetPod? = null,
    /** The phases this attempt sends (k6's PHASES): all three, unless a CPU boost splits the warm-up. */
    val phases: Set<WarmupPhase> = WarmupPhase.ALL,
)

/** The phases of a warm-up, in the order they run, by the names the k6 scripts give them. */
enum class WarmupPhase(
    val key: String,
) {
    COLD("cold"),
    WARMUP("warmup"),
    WARM("warm"),
    ;

    companion object {
        val ALL: Set<WarmupPhase> = entries.toSet()

        /** PHASES for k6: the keys, in order. */
        fun listOf(phases: Set<WarmupPhase>) = entries.filter { it in phases }.joinToString(",") { it.key }
    }
}

/** The pod a warm-up is for: where it is, and the one address traffic may go to. */
data class TargetPod(
    val namespace: String,
    val name: String,
    val uid: String,
    val ip: String,
)

/**
 * Where a warm-up may send traffic: the pod's own address and nothing else. A pod on the node's
 * network (`hostNetwork`) shares the node's address, so its port annotation would reach any port of
 * the node; such pods are refused unless the operator is told to allow them.
 */
object WarmupTarget {
    /** Why danki must not warm [pod] at its pod IP, or null when it may. */
    fun refusal(pod: Pod, allowHostNetwork: Boolean): String? {
        val status = pod.status
        val ip = status?.podIP ?: return null
        val listed = status.podIPs.orEmpty().map { it.ip }
        if (listed.isNotEmpty() && ip !in listed) return "pod IP $ip is not among the pod's own addresses $listed"
        val onNodeNetwork = pod.spec?.hostNetwork == true || ip == status.hostIP
        if (!onNodeNetwork || allowHostNetwork) return null
        return "the pod uses the node's network (hostNetwork), so $ip is the node's address and a warm-up " +
            "could reach any port of the node; danki warms only a pod's own address " +
            "(the chart value allowHostNetwork=true allows it)"
    }
}
