package dev.danki.cli

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType

/** What [Scaler] did, and how to put it back. */
data class ScaleChange(
    val description: String,
    val undo: String,
)

/**
 * Raises a Deployment to [replicas]: through its HorizontalPodAutoscaler's `minReplicas` when one
 * sets the replica count (a plain scale would be undone by the HPA at its next sync), else through
 * the Deployment's scale subresource, as `kubectl scale` does.
 */
class Scaler(
    private val reader: ClusterReader,
) {
    fun scale(ref: DeploymentRef, current: Int, replicas: Int, hpa: HorizontalPodAutoscaler?): ScaleChange =
        if (hpa == null) scaleDeployment(ref, current, replicas) else raiseMinimum(ref, hpa, replicas)

    private fun scaleDeployment(ref: DeploymentRef, current: Int, replicas: Int): ScaleChange {
        reader.call("scale deployment ${ref.name} in namespace ${ref.namespace}") {
            reader.client
                .apps()
                .deployments()
                .inNamespace(ref.namespace)
                .withName(ref.name)
                .scale(replicas)
        }
        return ScaleChange(
            "scaled deployment/${ref.name} from $current to $replicas replicas",
            "kubectl scale deployment/${ref.name} -n ${ref.namespace} --replicas=$current",
        )
    }

    /** Server-side apply of minReplicas (and maxReplicas when it is lower), owned by the CLI's field manager. */
    private fun raiseMinimum(ref: DeploymentRef, hpa: HorizontalPodAutoscaler, replicas: Int): ScaleChange {
        val name = hpa.metadata.name
        val oldMin = hpa.spec.minReplicas ?: 1
        val oldMax = hpa.spec.maxReplicas
        val newMax = maxOf(oldMax, replicas)
        val apply =
            HorizontalPodAutoscalerBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ref.namespace)
                .endMetadata()
                .withNewSpec()
                .withMinReplicas(replicas)
                .withMaxReplicas(newMax)
                .withScaleTargetRef(hpa.spec.scaleTargetRef)
                .endSpec()
                .build()
        reader.call("patch horizontalpodautoscaler $name in namespace ${ref.namespace}") {
            reader.client
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(ref.namespace)
                .withName(name)
                .patch(
                    PatchContext
                        .Builder()
                        .withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(Keys.CLI_FIELD_MANAGER)
                        .withForce(true)
                        .build(),
                    apply,
                )
        }
        val maxNote = if (newMax != oldMax) ", maxReplicas $oldMax -> $newMax" else ""
        return ScaleChange(
            "raised HorizontalPodAutoscaler $name minReplicas $oldMin -> $replicas$maxNote " +
                "(it owns the replica count; a GitOps tool may set it back: commit the change there too)",
            "kubectl patch hpa/$name -n ${ref.namespace} --type=merge " +
                "-p '{\"spec\":{\"minReplicas\":$oldMin,\"maxReplicas\":$oldMax}}'",
        )
    }
}
