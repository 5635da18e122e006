package dev.danki.operator.runner

import dev.danki.operator.leader.Leadership
import dev.danki.operator.warmup.AttemptStarter
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.K6Settings
import dev.danki.operator.warmup.RunningAttempt
import io.fabric8.kubernetes.api.model.ResourceRequirements
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import java.io.IOException
import java.time.Duration
import java.time.Instant

/**
 * Starts custom-flow attempts in runner pods: the tenant's code runs in the tenant's namespace, under
 * no identity, fenced to the pod it warms; the operator's credentials never meet it. The operator
 * reads the flow's ConfigMap only to refuse a missing one precisely; it never reads the Secret.
 */
class RunnerPods(
    private val client: KubernetesClient,
    /** A runner pod is this replica's as the leader: refused once it lost the Lease. */
    private val leadership: Leadership,
    private val image: String,
    private val resources: ResourceRequirements = RunnerPodSpec.DEFAULT_RESOURCES,
) : AttemptStarter {
    override fun start(request: K6Request): RunningAttempt {
        val target = request.target ?: throw IOException("no target pod for a runner pod")
        val script = request.plan.script ?: throw IOException("no custom flow to run")
        val name = RunnerPodSpec.nameOf(request.runName)
        try {
            checkFlow(target.namespace, script.configMap, script.key)
            // a predecessor's runner for this run (a leader that died) must not report for this attempt
            deleteRunner(client, target.namespace, name)
            val remaining = Duration.between(Instant.now(), request.deadline)
            leadership.check("runner pod ${target.namespace}/$name")
            // the fence first: the pod must never run without it
            client.resource(RunnerPodSpec.networkPolicy(request)).create()
            val env = environment(request, remaining)
            client.resource(RunnerPodSpec.pod(request, script, image, resources, remaining, env)).create()
        } catch (e: KubernetesClientException) {
            throw IOException("runner pod ${target.namespace}/$name not created: ${e.status?.message ?: e.message}", e)
        }
        return RunnerPod(client, request, target.namespace, name)
    }

    private fun checkFlow(namespace: String, configMap: String, key: String) {
        val found =
            client
                .configMaps()
                .inNamespace(namespace)
                .withName(configMap)
                .get()
                ?: throw IOException("ConfigMap $namespace/$configMap of danki.dev/script not found")
        if (found.data?.containsKey(key) != true) {
            val keys =
                found.data
                    .orEmpty()
                    .keys
                    .sorted()
                    .joinToString(", ")
                    .ifEmpty { "none" }
            throw IOException("ConfigMap $namespace/$configMap has no key $key (its keys: $keys)")
        }
    }

    /** runner.js's variables: the warm-up settings, the flow's path, and k6's budget inside the pod. */
    private fun environment(request: K6Request, remaining: Duration): Map<String, String> {
        // the pod needs a moment to be scheduled and start; k6 must still end before the deadline
        val budget = remaining.minus(K6Runner.STOP_MARGIN).minus(POD_START).coerceAtLeast(Duration.ofSeconds(1))
        val script = request.plan.script!!
        return K6Settings.of(request, budget) +
            mapOf(
                "FLOW_PATH" to "${RunnerPodSpec.FLOW_DIR}/${script.key}",
                "SECRET_DIR" to RunnerPodSpec.SECRET_DIR,
                "SUMMARY_PATH" to "/dev/termination-log",
            )
    }

    private companion object {
        val POD_START: Duration = Duration.ofSeconds(5)
    }
}
