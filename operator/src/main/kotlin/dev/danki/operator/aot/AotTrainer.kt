package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.ObjectKeys
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupSwitch
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors

/**
 * Decides, on each event of a Deployment (leader only), whether its cache is trained now
 * ([TrainingDecision]), and runs [Training]s on a few threads of their own, one at a time per
 * Deployment. Also takes a pod's report that its JVM refused the cache, which retrains it.
 */
class AotTrainer(
    private val store: AotStore,
    private val training: Training,
    private val parser: PlanParser,
    private val events: EventRecorder,
    /** The Deployment as the informer has it now (null: gone). */
    private val deploymentOf: (String, String) -> Deployment?,
) {
    private val log = LoggerFactory.getLogger(AotTrainer::class.java)
    private val inFlight: MutableSet<String> = ConcurrentHashMap.newKeySet()
    private val threads: ExecutorService =
        Executors.newFixedThreadPool(THREADS) { r -> Thread(r, "danki-aot-training").apply { isDaemon = true } }

    /** Called for every reconcile of [deployment] with its warm-up [switch]. */
    fun consider(deployment: Deployment, switch: WarmupSwitch) {
        val aot = AotAnnotations.of(deployment.metadata.annotations.orEmpty())
        if (!aot.enabled) return
        if (switch != WarmupSwitch.ENABLED) {
            events.warningOnce(
                deployment,
                Keys.EventReasons.AOT_TRAINING_FAILED,
                "${Keys.Annotations.AOT_CACHE} needs warm-up (${Keys.Annotations.WARMUP}: enabled): the cache is " +
                    "trained on the Deployment's warm-up plan",
            )
            return
        }
        val key = ObjectKeys.of(deployment)
        if (key in inFlight) return
        val input = inputFor(deployment, aot.trainRequest)
        if (input == null || !inFlight.add(key)) return
        threads.execute {
            try {
                train(input)
            } finally {
                inFlight.remove(key)
            }
        }
    }

    /** What a training of [deployment] needs now, or null: no valid plan, no container, or nothing to train. */
    private fun inputFor(deployment: Deployment, trainRequest: String?): Training.Input? {
        val spec = deployment.spec?.template?.spec
        val annotations = deployment.metadata.annotations.orEmpty()
        val plan = parser.parse(annotations, spec).plan
        val jvm = JvmContainer.of(spec, annotations[Keys.Annotations.PORT])
        if (plan == null || jvm == null) return null
        val (cache, claimCreated) = store.ensure(deployment)
        val template = JvmContainer.templateDigest(spec)
        return TrainingDecision.of(cache.status, jvm, template, trainRequest, claimCreated)?.let { cause ->
            Training.Input(deployment, cache, jvm, template, plan, cause, trainRequest)
        }
    }

    private fun train(input: Training.Input) {
        try {
            training.run(input)
        } catch (refused: JvmOptions.Refused) {
            fail(input, "JvmOptionsRefused", refused.reason)
        } catch (e: KubernetesClientException) {
            // the next event of the Deployment decides again from the status left behind (Training: resumed)
            log
                .atWarn()
                .addKeyValue("namespace", input.cache.metadata.namespace)
                .addKeyValue("deployment", input.cache.metadata.name)
                .setCause(e)
                .log("AOT cache training interrupted")
        } catch (e: InterruptedException) {
            Thread.currentThread().interrupt()
        }
    }

    private fun fail(input: Training.Input, reason: String, message: String) {
        val status =
            (input.cache.status ?: AotCacheStatus()).apply {
                phase = AotCache.PHASE_FAILED
                lastTrainingFor = input.jvm.trainingKey(input.templateDigest)
                trainRequest = input.trainRequest
                this.reason = reason
                this.message = Messages.cut(message)
                conditions = listOf(AotStore.condition(false, reason, this.message!!))
            }
        store.writeStatus(input.cache, status)
        events.warning(input.deployment, Keys.EventReasons.AOT_TRAINING_FAILED, message)
    }

    /**
     * A pod's JVM refused the cache [sha256] ([why]): recorded once on the AotCache, which retrains it
     * (at most [TrainingDecision.MAX_RETRAINS] times for one template, then Failed).
     */
    fun rejected(namespace: String, deployment: String, sha256: String, why: String) {
        val cache = store.read(namespace, deployment) ?: return
        val status = cache.status ?: return
        if (status.sha256 != sha256 || status.rejectedSha256 == sha256) return
        status.rejectedSha256 = sha256
        status.rejection = Messages.cut(why)
        if ((status.retrains ?: 0) >= TrainingDecision.MAX_RETRAINS && status.phase == AotCache.PHASE_READY) {
            status.phase = AotCache.PHASE_FAILED
            status.reason = "RejectedAfterRetraining"
            status.message = "pods' JVMs refused the cache after ${status.retrains} trainings of this template: $why"
        }
        store.writeStatus(cache, status)
        deploymentOf(namespace, deployment)?.let { consider(it, WarmupSwitch.ENABLED) }
    }

    fun stop() {
        threads.shutdownNow()
    }

    private companion object {
        /** Trainings at once: each is a JVM pod under warm-up load and a k6 process here. */
        const val THREADS = 2
    }
}
