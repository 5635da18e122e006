package dev.danki.operator.aot

import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.PodOwners
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
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
                val why = "the JVM refused the AOT cache $sha: ${outcome.reason}"
                events.warning(pod, Keys.EventReasons.AOT_REJECTED, why)
                val deployment = PodOwners.deploymentOf(pod)
                deployment?.let { trainer.rejected(pod.metadata.namespace, it, sha, outcome.reason.orEmpty()) }
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

/**
 * What a pod's JVM made of the AOT cache it was given: [kind] is [Keys.Aot.USED], [Keys.Aot.ABSENT],
 * [Keys.Aot.REJECTED] or `unknown` (its log could not be read); [reason] says why for all but `used`. Its
 * text form, as a WarmupRun's `status.aotCache` shows it, is `used` or `<kind> (<reason>)`.
 */
data class AotOutcome(
    val kind: String,
    val reason: String? = null,
) {
    override fun toString(): String = if (reason == null) kind else "$kind ($reason)"

    companion object {
        val USED = AotOutcome(Keys.Aot.USED)
    }
}

/**
 * What a pod made of the AOT cache the webhook gave it, read once its containers are ready: the verify
 * container's termination message says whether the checked copy was there, and the head of the JVM
 * container's log whether the JVM mapped it or refused it.
 */
class AotProbe(
    private val logs: LogReader,
) {
    /** The start of a container's log, at most `limitBytes`; null when it cannot be read. */
    fun interface LogReader {
        fun head(namespace: String, pod: String, container: String, limitBytes: Int): String?
    }

    /** The outcome for [pod]; null when it was not given a cache. */
    fun outcomeOf(pod: Pod): AotOutcome? {
        if (pod.metadata?.annotations?.containsKey(Keys.Aot.CACHE_ANNOTATION) != true) return null
        val report =
            pod.status
                ?.initContainerStatuses
                .orEmpty()
                .firstOrNull { it.name == Keys.Aot.VERIFY_CONTAINER }
                ?.state
                ?.terminated
                ?.message
                ?.trim()
        return when {
            report.isNullOrEmpty() -> absent(NO_REPORT)

            // our own container's message, but cleaned all the same: it names a path from the claim
            report.startsWith(ABSENT) -> absent(cut(clean(report.removePrefix(ABSENT))))

            report.startsWith(VERIFIED) -> ofJvm(pod)

            else -> absent(cut(clean("the cache check reported: $report")))
        }
    }

    private fun absent(reason: String) = AotOutcome(Keys.Aot.ABSENT, reason)

    private fun ofJvm(pod: Pod): AotOutcome {
        // the container the webhook gave `-XX:AOTCache`, else the first
        val containers = pod.spec?.containers.orEmpty()
        val container =
            containers.firstOrNull { c -> c.env.orEmpty().any { it.value?.contains(AotInjection.OPTION) == true } }
                ?: containers.firstOrNull()
        val head =
            container?.let {
                logs.head(
                    pod.metadata.namespace.orEmpty(),
                    pod.metadata.name.orEmpty(),
                    it.name,
                    HEAD_BYTES,
                )
            }
                ?: return AotOutcome(UNKNOWN, NO_LOG)
        return refusal(head)?.let { AotOutcome(Keys.Aot.REJECTED, it) } ?: AotOutcome.USED
    }

    companion object {
        /** The refusal is printed before anything else the JVM or the application writes. */
        const val HEAD_BYTES = 64 * 1024

        /** Longest reason quoted from the log. */
        const val MAX_REASON = 200

        const val NO_REPORT = "the cache check left no report"
        const val NO_LOG = "the JVM's log could not be read"
        private const val UNKNOWN = "unknown"
        private const val ABSENT = "${Keys.Aot.ABSENT}:"
        private const val VERIFIED = "${Keys.Aot.VERIFIED} "

        /** The decorations in front (uptime, time, pid...: any), then the level (padded) and the `aot` tag. */
        private val LINE = Regex("""^(?:\[[^\[\]]*])*?\[(warning|error)\s*]\[aot\s*] ?(.*)$""")

        private const val UNABLE = "Unable to use AOT cache"

        /** The line that only says to run with `-Xlog:aot`, which the pod's owner cannot act on as a reason. */
        private const val GENERIC = "An error has occurred while processing the AOT cache"

        /** Control, format (bidi overrides) and line-separator characters: nothing a reason needs. */
        private val UNPRINTABLE = Regex("[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]")

        /**
         * Why the JVM refused its cache, from [head] of its log; null when it did not. A JDK 25 JVM that
         * cannot use the cache says so at the default log level before anything else:
         * ```
         * [0.012s][warning][aot] Unable to use AOT cache.
         * [0.012s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
         * [0.012s][error  ][aot] Loading static archive failed.
         * ```
         * and a JVM that maps it says nothing at that level. Other `[warning][aot]` lines (`Preload Warning:
         * Verification failed for ...`, `Skipping ...: Unsupported location`) come from a JVM that did use it.
         * The log is the tenant's output: whatever is quoted from it is stripped of control characters and cut.
         */
        private fun refusal(head: String): String? {
            val refusals =
                head
                    .lineSequence()
                    .mapNotNull { LINE.matchEntire(it.trimEnd('\r'))?.destructured }
                    .filter { (level, message) -> level == "error" || message.startsWith(UNABLE) }
                    .map { (_, message) -> message }
                    .toList()
            if (refusals.isEmpty()) return null
            val reasons = refusals.filterNot { it.startsWith(GENERIC) }.map(::clean).filter { it.isNotEmpty() }
            return cut(reasons.distinct().joinToString("; ").ifEmpty { "the JVM refused the cache" })
        }

        /** [text] trimmed, without the characters a log line, an Event or a terminal could be tricked by. */
        private fun clean(text: String): String = UNPRINTABLE.replace(text, "").trim()

        /** [text] cut to [MAX_REASON] characters, never between the halves of a surrogate pair. */
        private fun cut(text: String): String {
            if (text.length <= MAX_REASON) return text
            val end = if (text[MAX_REASON - 1].isHighSurrogate()) MAX_REASON - 1 else MAX_REASON
            return text.substring(0, end)
        }
    }
}

/** [AotProbe.LogReader] through the API server: `GET .../pods/<pod>/log?container=<c>&limitBytes=<n>`. */
class PodLogHead(
    private val client: KubernetesClient,
) : AotProbe.LogReader {
    private val log = LoggerFactory.getLogger(PodLogHead::class.java)

    override fun head(namespace: String, pod: String, container: String, limitBytes: Int): String? =
        try {
            client
                .pods()
                .inNamespace(namespace)
                .withName(pod)
                .inContainer(container)
                .limitBytes(limitBytes)
                .log
        } catch (e: KubernetesClientException) {
            // gone, not started, or the API server did not answer: the outcome is then unknown
            log
                .atDebug()
                .addKeyValue("namespace", namespace)
                .addKeyValue("pod", pod)
                .addKeyValue("container", container)
                .addKeyValue("code", e.code)
                .setCause(e)
                .log("container log not read")
            null
        }
}
