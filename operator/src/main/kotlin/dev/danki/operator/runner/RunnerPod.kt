package dev.danki.operator.runner

import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.K6Outcome
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.RunningAttempt
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CancellationException
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * One attempt in a runner pod: waits for the pod to end, told by a watch on that one pod (fabric8's
 * `informOnCondition`), and removes the pod and its NetworkPolicy when done. The pod's own
 * `activeDeadlineSeconds` ends it even if this operator is gone.
 */
class RunnerPod(
    private val client: KubernetesClient,
    private val request: K6Request,
    private val namespace: String,
    private val name: String,
) : RunningAttempt {
    private val log = LoggerFactory.getLogger(RunnerPod::class.java)

    /**
     * Completes once the pod has ended or is gone. The watch starts after the pod was created, so its
     * first list holds it: an empty list means it was deleted before it ended.
     */
    private val ended =
        client
            .pods()
            .inNamespace(namespace)
            .withName(name)
            .informOnCondition { pods -> pods.isEmpty() || outcomeOf(pods.first()) != null }

    @Volatile private var cancelled = false

    override fun await(): K6Outcome {
        // a little past the deadline: the pod's own deadline ends it, and its status is worth reading
        val wait = Duration.between(Instant.now(), request.deadline.plus(AFTER_DEADLINE)).coerceAtLeast(Duration.ZERO)
        return try {
            val pod = ended.get(wait.toMillis(), TimeUnit.MILLISECONDS).firstOrNull()
            pod?.let(::outcomeOf) ?: failed("runner pod $name was deleted before it ended")
        } catch (_: TimeoutException) {
            ended.cancel(true)
            K6Outcome.Failed(Keys.RunConditions.REASON_TIMEOUT, "runner pod $name ran past the deadline")
        } catch (_: CancellationException) {
            K6Outcome.Cancelled
        } catch (e: ExecutionException) {
            // fabric8 stops a watch only on an error it cannot retry
            if (cancelled) K6Outcome.Cancelled else failed("runner pod $name not watched: ${e.cause?.message ?: e}")
        }
    }

    private fun outcomeOf(pod: Pod): K6Outcome? = RunnerResult.of(pod, request.maxErrorRatio, request.phases)

    override fun cancel() {
        cancelled = true
        ended.cancel(true)
        cleanUp()
    }

    override fun cleanUp() {
        ended.cancel(true)
        try {
            deleteRunner(client, namespace, name)
        } catch (e: KubernetesClientException) {
            // the warmed pod owns both: the garbage collector removes them with it
            log
                .atWarn()
                .addKeyValue("namespace", namespace)
                .addKeyValue("runner", name)
                .setCause(e)
                .log("runner pod not deleted")
        }
    }

    private fun failed(message: String) = K6Outcome.Failed(Keys.RunConditions.REASON_K6_FAILED, message)

    private companion object {
        val AFTER_DEADLINE: Duration = Duration.ofSeconds(5)
    }
}
