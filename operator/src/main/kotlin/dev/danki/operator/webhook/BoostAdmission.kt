package dev.danki.operator.webhook

import dev.danki.operator.boost.BoostDecision
import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.boost.DeclaredCpu
import dev.danki.operator.boost.PodQos
import dev.danki.operator.kube.JsonPatchAdd
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.PlanParser
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment

/**
 * The CPU boost from admission (`danki.dev/warmup-cpu`): the webhook gives the warmed container its boost
 * as its CPU limit when the pod is created, so that its JVM starts, loads its classes, compiles and warms
 * at it, not only the warm-up phase. The container's declared CPU goes on the pod
 * ([Keys.DECLARED_CPU_ANNOTATION]), from which the operator restores it, by an in-place resize, before the
 * warm pass and so before the gate. A Guaranteed pod's request moves with its limit, so its QoS class
 * stays; the scheduler then has to fit the boost. Pure: the caller adds these operations only to a pod
 * that will be warmed.
 */
class BoostAdmission(
    private val parser: PlanParser,
) {
    /** The operations; [pod] with the annotation as they leave it, for the patches that come after. */
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
        val ops =
            listOfNotNull(
                // `add` of a member that exists replaces it
                JsonPatchAdd.op("$at/limits/$CPU", value),
                boost.fromRequestMillis?.let { JsonPatchAdd.toMap("$at/requests", requests, CPU, value) },
                // over any value the pod came with: the operator restores what this one says
                JsonPatchAdd.toMap(
                    "/metadata/annotations",
                    pod.metadata?.annotations,
                    Keys.DECLARED_CPU_ANNOTATION,
                    declared,
                ),
            )
        val annotated =
            PodBuilder(pod)
                .editMetadata()
                .addToAnnotations(Keys.DECLARED_CPU_ANNOTATION, declared)
                .endMetadata()
                .build()
        return Result(ops, annotated)
    }

    /** The boost [deployment] asks for [pod], when one applies. */
    private fun boostOf(pod: Pod, deployment: Deployment): BoostDecision.Boost? {
        val spec = pod.spec ?: return null
        val plan = parser.parse(deployment.metadata?.annotations.orEmpty(), spec).plan
        val boostMillis = plan?.warmupCpuMillis ?: return null
        // a pod-level CPU limit would hold the container back whatever its own says
        if (spec.resources?.limits?.get(CPU) != null) return null
        return BoostDecision.of(
            pod,
            plan.port,
            boostMillis,
            guaranteed = PodQos.guaranteed(spec),
        ) as? BoostDecision.Boost
    }

    private companion object {
        const val CPU = "cpu"
    }
}
