package dev.danki.operator.controller

import dev.danki.operator.kube.BackoffPolicy
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.FailurePolicy
import java.time.Duration
import java.time.Instant
import kotlin.random.Random

/** A failed run to try again now ([cause] set), later ([dueIn] set), or not at all (both null). */
data class RunRetry(
    val cause: String? = null,
    val dueIn: Duration? = null,
) {
    companion object {
        private val NONE = RunRetry()

        /** Failures on danki's side rather than the target's: a pod held closed by them is tried again. */
        val DANKI_SIDE = setOf(Keys.RunConditions.REASON_QUEUE_TIMEOUT, Keys.RunConditions.REASON_K6_NOT_STARTED)

        /** Waits between retries of a danki-side failure: 30 s, doubling to 5 min, for as long as the pod is held. */
        private val BASE: Duration = Duration.ofSeconds(30)
        private val CAP: Duration = Duration.ofMinutes(5)

        /**
         * Whether a failed [run] is tried again. A user's new `danki.dev/rewarm` value always is (whatever
         * the policy); under policy closed, so is a run whose Deployment's warm-up annotations changed
         * since ([digest]), and one that failed on danki's side, after a back-off. Anything else stays
         * final until the pod is replaced, as a failed probe would.
         */
        fun of(
            status: WarmupRunStatus?,
            failurePolicy: String?,
            runName: String,
            rewarm: String?,
            digest: String,
            now: Instant = Instant.now(),
        ): RunRetry {
            if (status?.phase != WarmupRun.PHASE_FAILED) return NONE
            val closed = FailurePolicy.recorded(failurePolicy) == FailurePolicy.CLOSED
            return when {
                !rewarm.isNullOrEmpty() && rewarmToken(rewarm) != status.rewarm -> {
                    RunRetry("rewarm requested (${Keys.Annotations.REWARM}=${Messages.quote(rewarm)})")
                }

                closed && status.configDigest != null && status.configDigest != digest -> {
                    RunRetry("the Deployment's warm-up annotations changed")
                }

                closed && status.reason in DANKI_SIDE -> {
                    afterBackoff(status, runName, now)
                }

                else -> {
                    NONE
                }
            }
        }

        private fun afterBackoff(status: WarmupRunStatus, runName: String, now: Instant): RunRetry {
            val retries = status.retries ?: 0
            // seeded by the run, so every reconcile computes the same wait (the jitter still spreads pods)
            val wait = BackoffPolicy(BASE, CAP, Random(runName.hashCode())).delay(retries + 1)
            val failedAt = RunStatuses.instantOf(status.completionTime) ?: now
            val due = failedAt.plus(wait)
            return if (now.isBefore(due)) {
                RunRetry(dueIn = Duration.between(now, due))
            } else {
                RunRetry("${status.reason} was on danki's side; retry ${retries + 1}")
            }
        }

        /** What a run keeps of a `danki.dev/rewarm` value: the value itself when short, else its digest. */
        fun rewarmToken(value: String?): String? =
            when {
                value.isNullOrEmpty() -> null
                value.length <= MAX_TOKEN -> value
                else -> "sha256:" + Messages.digest(value).take(DIGEST_CHARS)
            }

        private const val MAX_TOKEN = 63
        private const val DIGEST_CHARS = 16

        /** A digest of the Deployment's danki.dev annotations, except the on/off switch. */
        fun configDigest(annotations: Map<String, String>?): String =
            annotations
                .orEmpty()
                .filterKeys { it.startsWith(Keys.PREFIX) && it != Keys.Annotations.WARMUP }
                .toSortedMap()
                .entries
                .joinToString("\n") { "${it.key}=${it.value}" }
                .let { Messages.digest(it).take(DIGEST_CHARS) }
    }
}
