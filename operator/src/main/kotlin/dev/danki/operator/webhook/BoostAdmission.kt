package dev.danki.operator.webhook

import dev.danki.operator.aot.JvmContainer
import dev.danki.operator.aot.JvmOptions
import dev.danki.operator.boost.BoostDecision
import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.boost.DeclaredCpu
import dev.danki.operator.boost.JvmThreads
import dev.danki.operator.boost.PodQos
import dev.danki.operator.kube.JsonPatchAdd
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.PlanParser
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment

/**
 * The CPU boost from admission (`danki.dev/warmup-cpu`): the webhook gives the warmed container its boost
 * as its CPU limit when the pod is created, so that its JVM starts, loads its classes, compiles and warms
 * at it, not only the warm-up phase. The container's declared CPU goes on the pod
 * ([Keys.DECLARED_CPU_ANNOTATION]), from which the operator restores it, by an in-place resize, before the
 * warm pass and so before the gate. A Guaranteed pod's request moves with its limit, so its QoS class
 * stays; the scheduler then has to fit the boost.
 *
 * A JVM sizes its GC and JIT threads from the CPU it sees at start and keeps them when the limit falls,
 * so with [activeProcessors] the boosted container's JVM is told its declared CPU, rounded up
 * (`-XX:ActiveProcessorCount`, through [JvmOptions]): it is then the JVM its own limit would have started,
 * run faster. A value the pod's environment sets already is the user's and wins. Pure: the caller adds
 * these operations only to a pod that will be warmed.
 */
class BoostAdmission(
    private val parser: PlanParser,
    /** Whether the boosted JVM is told its declared CPU (chart value `cpuBoost.activeProcessorCount`). */
    private val activeProcessors: Boolean = false,
    /** The cluster's nodes (kube.NodeShapes), whose allocatable CPU caps the default boost. */
    private val nodes: () -> Collection<Node> = { emptyList() },
) {
    /**
     * The operations; [pod] as they leave it (annotation, environment), for the patches that come after:
     * the AOT cache's adds to the same environment.
     */
    data class Result(
        val ops: List<Map<String, Any>>,
        val pod: Pod,
    )

    fun patchFor(pod: Pod, deployment: Deployment): Result {
        val boost = boostOf(pod, deployment) ?: return Result(emptyList(), pod)
        val spec = pod.spec
        val index = spec.containers.indexOfFirst { it.name == boost.container }
        val at = "/spec/containers/$index/resources"
        val requests = spec.containers[index].resources?.requests
        val value = CpuQuantity.format(boost.toMillis)
        val declared = DeclaredCpu(boost.container, boost.fromLimitMillis, boost.fromRequestMillis).annotation()
        val env = if (activeProcessors) envWithProcessors(spec.containers[index], boost.fromLimitMillis) else null
        val ops =
            listOfNotNull(
                // `add` of a member that exists replaces it
                JsonPatchAdd.op("$at/limits/$CPU", value),
                boost.fromRequestMillis?.let { JsonPatchAdd.toMap("$at/requests", requests, CPU, value) },
                // the whole env, as JvmOptions returned it
                env?.let { JsonPatchAdd.op("/spec/containers/$index/env", it) },
                // over any value the pod came with: the operator restores what this one says
                JsonPatchAdd.toMap(
                    "/metadata/annotations",
                    pod.metadata?.annotations,
                    Keys.DECLARED_CPU_ANNOTATION,
                    declared,
                ),
            )
        val admitted =
            PodBuilder(pod)
                .editMetadata()
                .addToAnnotations(Keys.DECLARED_CPU_ANNOTATION, declared)
                .endMetadata()
                .apply {
                    env?.let {
                        editSpec()
                            .editContainer(index)
                            .withEnv(it)
                            .endContainer()
                            .endSpec()
                    }
                }.build()
        return Result(ops, admitted)
    }

    /**
     * [container]'s env with `-XX:ActiveProcessorCount` for [limitMillis], or null to leave it: the user
     * sets the option already, or a variable the JVM reads options from comes from a reference, whose
     * value danki cannot see (appended after it, danki's would win).
     */
    private fun envWithProcessors(container: Container, limitMillis: Long): List<EnvVar>? {
        val env = container.env.orEmpty()
        val options = env.filter { it.name in JvmContainer.OPTION_VARIABLES }
        if (options.any { it.valueFrom != null || it.value.orEmpty().contains(PROCESSORS_FLAG) }) return null
        // envFrom may set the options' variables: JvmOptions refuses then, as for the cache
        val hasEnvFrom = !container.envFrom.isNullOrEmpty()
        if (JvmOptions.refusal(env, hasEnvFrom) != null) return null
        return JvmOptions.append(env, hasEnvFrom, "$PROCESSORS_FLAG=${JvmThreads.activeProcessors(limitMillis)}")
    }

    /** The boost [deployment] asks for [pod], when one applies. */
    private fun boostOf(pod: Pod, deployment: Deployment): BoostDecision.Boost? {
        val spec = pod.spec ?: return null
        val plan = parser.parse(deployment.metadata?.annotations.orEmpty(), spec).plan
        val amount = plan?.warmupCpu ?: return null
        // a pod-level CPU limit would hold the container back whatever its own says
        if (spec.resources?.limits?.get(CPU) != null) return null
        return BoostDecision.of(
            pod,
            plan.port,
            amount,
            guaranteed = PodQos.guaranteed(spec),
            nodes = nodes,
        ) as? BoostDecision.Boost
    }

    private companion object {
        const val CPU = "cpu"
        const val PROCESSORS_FLAG = "-XX:ActiveProcessorCount"
    }
}
