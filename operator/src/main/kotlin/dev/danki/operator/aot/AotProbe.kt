package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod

/**
 * What a pod made of the AOT cache the webhook gave it, read once its containers are ready: the verify
 * container's termination message says whether the checked copy was there, and the head of the JVM
 * container's log whether the JVM mapped it or refused it ([AotJvmLog]).
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
            report.isNullOrEmpty() -> AotOutcome.absent(NO_REPORT)
            report.startsWith(ABSENT) -> AotOutcome.absent(quoted(report.removePrefix(ABSENT)))
            report.startsWith(VERIFIED) -> ofJvm(pod)
            else -> AotOutcome.absent(quoted("the cache check reported: $report"))
        }
    }

    private fun ofJvm(pod: Pod): AotOutcome {
        val container = jvmContainer(pod) ?: return AotOutcome.unknown(NO_LOG)
        val head =
            logs.head(pod.metadata.namespace.orEmpty(), pod.metadata.name.orEmpty(), container, HEAD_BYTES)
                ?: return AotOutcome.unknown(NO_LOG)
        return AotJvmLog.refusal(head)?.let(AotOutcome::rejected) ?: AotOutcome.USED
    }

    /** The container the webhook gave `-XX:AOTCache`, else the first. */
    private fun jvmContainer(pod: Pod): String? {
        val containers = pod.spec?.containers.orEmpty()
        val given =
            containers.firstOrNull { c ->
                c.env.orEmpty().any { it.value?.contains(AotInjection.OPTION) == true }
            }
        return (given ?: containers.firstOrNull())?.name
    }

    /** Our own container's message, but cleaned all the same: it names a path from the claim. */
    private fun quoted(text: String) = AotJvmLog.cut(AotJvmLog.clean(text).trim())

    companion object {
        /** The refusal is printed before anything else the JVM or the application writes. */
        const val HEAD_BYTES = 64 * 1024

        const val NO_REPORT = "the cache check left no report"
        const val NO_LOG = "the JVM's log could not be read"
        private const val ABSENT = "${Keys.Aot.ABSENT}:"
        private const val VERIFIED = "${Keys.Aot.VERIFIED} "
    }
}
