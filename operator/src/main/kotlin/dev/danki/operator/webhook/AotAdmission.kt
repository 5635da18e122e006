package dev.danki.operator.webhook

import dev.danki.operator.aot.AotInjection
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.apps.Deployment
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap

/**
 * The webhook's side of the AOT cache: for a pod that will be warmed, [AotInjection]'s patch with the
 * Deployment's AotCache from the informer cache. A cache the informer has not seen yet means a cold
 * start, never a wait. Why a pod could not be given the option is logged once per Deployment and reason
 * (again after [REPEAT]): every pod of a ReplicaSet would say the same.
 */
class AotAdmission(
    /** danki's image, which runs the check of the cache in each pod. */
    private val runnerImage: String,
    /** The AotCache named [name] in [namespace] (the Deployment's), or null. */
    private val caches: (namespace: String, name: String) -> AotCache?,
    /** The claim [name] in [namespace] (danki's informer of its claims), or null. */
    private val claims: (namespace: String, name: String) -> PersistentVolumeClaim?,
    private val now: () -> Instant = Instant::now,
) {
    private val log = LoggerFactory.getLogger(AotAdmission::class.java)
    private val refusalsLogged = ConcurrentHashMap<String, Instant>()

    /** The operations that give [pod] of [deployment] its cache; empty when it starts without one. */
    fun patchFor(namespace: String, pod: Pod, deployment: Deployment): List<Map<String, Any>> {
        val name = deployment.metadata?.name ?: return emptyList()
        // one map read saved for the many Deployments without the feature
        if (deployment.metadata.annotations?.get(Keys.Annotations.AOT_CACHE) == null) return emptyList()
        val cache = caches(namespace, name)
        val result = AotInjection.patchFor(pod, deployment, cache, runnerImage)
        result.refusal?.let { refused(namespace, name, it) }
        val claim = cache?.spec?.claimName
        if (result.ops.isNotEmpty() && claim != null && !usable(claims(namespace, claim))) {
            // a pod that mounts a claim that is gone, or going, stays Pending: it starts without the cache
            refused(namespace, name, "its claim $claim is gone; danki makes it again and retrains the cache")
            return emptyList()
        }
        if (result.ops.isNotEmpty()) {
            log
                .atDebug()
                .addKeyValue("namespace", namespace)
                .addKeyValue("deployment", name)
                .addKeyValue("pod", pod.metadata?.name ?: pod.metadata?.generateName)
                .log("pod given the aot cache at admission")
        }
        return result.ops
    }

    /** A claim being deleted waits only for the pods that use it to go: a new pod would wait for good. */
    private fun usable(claim: PersistentVolumeClaim?) = claim != null && claim.metadata?.deletionTimestamp == null

    /** Logs [reason] unless it was logged for [deployment] within [REPEAT]; whether it was logged now. */
    internal fun refused(namespace: String, deployment: String, reason: String): Boolean {
        val key = "$namespace/$deployment\u0000$reason"
        val at = now()
        val last = refusalsLogged[key]
        if (last != null && last.plus(REPEAT).isAfter(at)) return false
        // a bound on memory, not a policy: past it a refusal is logged once more
        if (refusalsLogged.size >= MAX_REMEMBERED) refusalsLogged.clear()
        refusalsLogged[key] = at
        log
            .atInfo()
            .addKeyValue("namespace", namespace)
            .addKeyValue("deployment", deployment)
            .addKeyValue("reason", reason)
            .log("pods start without the aot cache: its option cannot be added")
        return true
    }

    companion object {
        /** A refusal that lasts is said again this often, so that it is still in recent logs. */
        val REPEAT: Duration = Duration.ofHours(1)
        private const val MAX_REMEMBERED = 1024
    }
}
