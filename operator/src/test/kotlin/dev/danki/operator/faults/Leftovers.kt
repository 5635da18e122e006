package dev.danki.operator.faults

import dev.danki.operator.e2e.OperatorProcess
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.client.KubernetesClient
import java.io.File

/**
 * What a fault may leave behind, all of which must be gone once every pod is decided: k6 processes
 * against this instance's pods (or under an operator), runner pods, WarmupRuns still Pending or
 * Running or whose pod is gone, and network namespaces of pods that no longer exist.
 */
data class Leftovers(
    val k6: List<String>,
    val runnerPods: List<String>,
    val activeRuns: List<String>,
    val orphanRuns: List<String>,
    val netns: List<String>,
) {
    fun isEmpty() = asMap().values.all { it.isEmpty() }

    fun asMap(): Map<String, List<String>> =
        mapOf(
            "k6" to k6,
            "runnerPods" to runnerPods,
            "activeRuns" to activeRuns,
            "orphanRuns" to orphanRuns,
            "netns" to netns,
        )

    companion object {
        /** Looks now, at the pods of [layout]'s instance; network namespaces are the net agent's attachments. */
        fun of(
            client: KubernetesClient,
            ns: String,
            layout: InstanceLayout,
            operators: List<OperatorProcess>,
        ): Leftovers {
            val pods =
                client
                    .pods()
                    .inAnyNamespace()
                    .list()
                    .items
            val live = pods.map { it.metadata.uid }.toSet()
            val runs =
                client
                    .resources(WarmupRun::class.java)
                    .inNamespace(ns)
                    .list()
                    .items
            val active = setOf(WarmupRun.PHASE_PENDING, WarmupRun.PHASE_RUNNING)
            return Leftovers(
                k6 = k6Processes(layout.podPrefixes, operators),
                runnerPods =
                    pods
                        .filter {
                            it.metadata.labels
                                .orEmpty()
                                .containsKey(Keys.RunnerLabels.RUNNER)
                        }.map { "${it.metadata.namespace}/${it.metadata.name}" },
                activeRuns =
                    runs
                        .filter { (it.status?.phase ?: WarmupRun.PHASE_PENDING) in active }
                        .map { it.metadata.name },
                orphanRuns = runs.filter { it.spec.podUid !in live }.map { it.metadata.name },
                netns =
                    layout
                        .attachedPods()
                        .filterValues { it !in live }
                        .keys
                        .toList(),
            )
        }

        /**
         * k6 processes whose target (BASE_URL) is a pod of this instance, or that descend from an operator.
         * A lookup that fails throws: it must fail the case, never read as "no leftovers". (A process that
         * ends during the scan is not a failure: its /proc files read as empty and it is no longer alive.)
         */
        private fun k6Processes(podPrefixes: List<String>, operators: List<OperatorProcess>): List<String> {
            val children = operators.flatMap { op -> op.k6Children() }
            val byTarget =
                ProcessHandle.allProcesses().toList().filter { handle ->
                    val pid = handle.pid()
                    val cmd = read("/proc/$pid/cmdline")
                    cmd
                        .split('\u0000')
                        .firstOrNull()
                        .orEmpty()
                        .endsWith("k6") &&
                        podPrefixes.any { prefix ->
                            cmd.contains(prefix) || read("/proc/$pid/environ").contains("BASE_URL=http://$prefix")
                        }
                }
            return (children + byTarget)
                .filter { it.isAlive }
                .distinctBy { it.pid() }
                .map { "pid ${it.pid()}: ${read("/proc/${it.pid()}/cmdline").replace('\u0000', ' ').trim()}" }
        }

        private fun read(path: String): String = runCatching { File(path).readText() }.getOrDefault("")
    }
}
