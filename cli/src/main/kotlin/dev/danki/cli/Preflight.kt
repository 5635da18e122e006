package dev.danki.cli

import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.PodSpec
import io.fabric8.kubernetes.api.model.ResourceQuota
import io.fabric8.kubernetes.api.model.apps.Deployment

/** What `prewarm` will do about the replica count. */
data class ReplicaPlan(
    val scale: Boolean,
    val note: String,
)

/** The checks `prewarm` makes before it changes anything; each failure says the next step. */
object Preflight {
    /** Opted in by its own annotation or, without one, by its namespace's label (webhook mode). */
    fun requireOptedIn(ref: DeploymentRef, deployment: Deployment, namespaceLabels: Map<String, String> = emptyMap()) {
        if (WarmupSwitch.of(deployment, namespaceLabels) == WarmupSwitch.ENABLED) return
        val value = deployment.metadata.annotations?.get(Keys.Annotations.WARMUP)
        val now =
            value?.let { "its ${Keys.Annotations.WARMUP} is '${it.take(MAX_ECHO)}'" }
                ?: "it has no ${Keys.Annotations.WARMUP} annotation"
        throw CliFailure(
            ExitCode.NOT_OPTED_IN,
            "$ref is not opted in to danki: $now, so its new pods would join the Service cold",
            "kubectl annotate deployment/${ref.name} -n ${ref.namespace} " +
                "${Keys.Annotations.WARMUP}=${Keys.Annotations.ENABLED} --overwrite " +
                "(in webhook mode, the chart's default, this rolls nothing; in template mode it rolls the " +
                "Deployment once), then run prewarm again",
        )
    }

    fun checkReplicas(ref: DeploymentRef, current: Int, replicas: Int): ReplicaPlan =
        when {
            replicas > current -> {
                ReplicaPlan(true, "")
            }

            replicas == current -> {
                ReplicaPlan(false, "$ref already has $replicas replicas: judging its current pods")
            }

            else -> {
                throw CliFailure(
                    ExitCode.USAGE,
                    "$ref has $current replicas; prewarm only scales up (asked for $replicas)",
                    "scale down after the busy hour with kubectl scale, or ask for --replicas $current or more",
                )
            }
        }

    fun requireQuota(ref: DeploymentRef, quotas: List<ResourceQuota>, template: PodSpec, added: Int) {
        val problems = QuotaCheck.problems(quotas, template, added)
        if (problems.isEmpty()) return
        throw CliFailure(
            ExitCode.NO_CAPACITY,
            "no room for $added more pods of $ref:\n    " + problems.joinToString("\n    "),
            "raise the quota (kubectl describe resourcequota -n ${ref.namespace}) or ask for fewer --replicas; " +
                "nothing was scaled",
        )
    }

    private const val MAX_ECHO = 40
}
