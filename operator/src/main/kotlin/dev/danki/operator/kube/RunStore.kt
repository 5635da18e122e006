package dev.danki.operator.kube

import dev.danki.operator.leader.Leadership
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException

/** Creates WarmupRuns (owned by their pod) and writes their status with server-side apply. */
class RunStore(
    private val client: KubernetesClient,
    /** Every write is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
) {
    /** Creates the run with [status], or takes over the one that already exists under that name. */
    fun create(pod: Pod, name: String, spec: WarmupRunSpec, status: WarmupRunStatus): WarmupRun {
        leadership.check("WarmupRun ${pod.metadata.namespace}/$name")
        val runs = client.resources(WarmupRun::class.java).inNamespace(pod.metadata.namespace)
        val created =
            try {
                runs.resource(newRun(pod, name, spec)).create()
            } catch (e: KubernetesClientException) {
                if (e.code != ApiStatus.CONFLICT) throw e
                runs.withName(name).get() ?: throw e
            }
        writeStatus(pod.metadata.namespace, name, status)
        return created
    }

    private fun newRun(pod: Pod, name: String, spec: WarmupRunSpec) =
        WarmupRun().apply {
            metadata =
                ObjectMetaBuilder()
                    .withName(name)
                    .withNamespace(pod.metadata.namespace)
                    .withLabels<String, String>(mapOf(Keys.WARMUP_LABEL to Keys.WARMUP_LABEL_VALUE))
                    .withOwnerReferences(Owners.of(pod))
                    .build()
            this.spec = spec
        }

    /** Replaces the whole status (danki owns all of it) on the status subresource. */
    fun writeStatus(namespace: String, name: String, status: WarmupRunStatus) {
        leadership.check("the status of WarmupRun $namespace/$name")
        ServerSideApply.status(client, WarmupRun(), namespace, name, status)
    }

    companion object {
        /** One run per pod and container restart count: `<pod>`, then `<pod>-r1`, `<pod>-r2`... */
        fun runName(pod: String, restartCount: Int) = if (restartCount == 0) pod else "$pod-r$restartCount"
    }
}
