package dev.danki.cluster.pod

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.network.HostCommandException
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.status.ContainerSnapshot
import dev.danki.cluster.status.PodFailure
import dev.danki.cluster.status.PodObservation
import dev.danki.cluster.status.PodPhases
import dev.danki.cluster.status.PodStatusPatch
import dev.danki.cluster.status.RunState
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClientException
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeoutOrNull
import org.slf4j.LoggerFactory
import java.io.IOException
import java.time.Duration
import java.time.Instant

/**
 * The life of one pod on this node: network, service-account files, one [ContainerRunner] per
 * container, and the status writes; then, on deletion, the kubelet's teardown.
 */
class PodWorker(
    initial: Pod,
    private val services: PodServices,
) {
    private val log = LoggerFactory.getLogger(PodWorker::class.java)
    private val uid: String = initial.metadata.uid

    @Volatile private var latest: Pod = initial
    private val syncRequests = Channel<Unit>(Channel.CONFLATED)

    // Written by the pod's coroutine, read by the informer thread (update) and by stop().
    @Volatile private var context: PodContext? = null

    @Volatile private var network: PodNetworkHandle? = null

    @Volatile private var runners: List<ContainerRunner> = emptyList()

    @Volatile private var job: Job? = null
    private val startTime = Instant.now()
    private val statusSync = PodStatusSync(services.status::patch)
    private var tokenRefreshAt: Instant = Instant.now()

    /** Set when the agent itself stops: its pods stay as they are in the API, with no terminal status. */
    @Volatile private var leaveStatusAlone = false

    /** Set when the node failed the pod itself (past its active deadline). */
    @Volatile private var failure: PodFailure? = null

    /** The latest version of the pod seen by the informer. */
    val pod: Pod get() = latest

    val namespace: String get() = latest.metadata.namespace
    val name: String get() = latest.metadata.name

    /** A newer version of the pod (for example a readiness-gate condition changed): re-check its status. */
    fun update(pod: Pod) {
        latest = pod
        context?.pod = pod
        syncRequests.trySend(Unit)
    }

    /** Starts the pod in [scope]. */
    fun start(scope: CoroutineScope) {
        job = scope.launch { runPod() }
    }

    private suspend fun runPod() =
        coroutineScope {
            val ready = setUp() ?: return@coroutineScope
            context = ready
            runners =
                latest.spec.containers.map { container ->
                    val reported = latest.status?.containerStatuses?.find { it.name == container.name }
                    val first = RestartRules.firstStartCount(reported)
                    val onChange: () -> Unit = { syncRequests.trySend(Unit) }
                    ContainerRunner(ready, container, onChange, firstStartCount = first)
                }
            runners.forEach { runner -> launch { keepRunning(runner) } }
            if (ready.serviceAccountDir != null) launch { refreshToken(ready) }
            launch { atBoundary("active deadline check failed") { enforceActiveDeadline() } }
            syncRequests.trySend(Unit)
            while (true) {
                // Also re-check now and then: a status someone else overwrote is written again
                // (the check writes only what differs from the API server's copy).
                withTimeoutOrNull(RESYNC.toMillis()) { syncRequests.receive() }
                atBoundary("pod status write failed") { writeStatus(ready) }
            }
        }

    /**
     * Runs [runner] to its end. One that fails unexpectedly runs again after a back-off, as the
     * kubelet's next sync would, so its container is never silently left behind; it adopts the
     * process it left running.
     */
    private suspend fun keepRunning(runner: ContainerRunner) {
        var failures = 0
        while (!atBoundary("container runner failed") { runner.run() }) {
            failures++
            // backoff(1) is immediate; a failing runner waits 10 s, 20 s, ... up to 5 min.
            delay(RestartRules.backoff(failures + 1).toMillis())
        }
    }

    /** Network and token files; null (after reporting why) when the pod cannot run here. */
    private suspend fun setUp(): PodContext? {
        val pod = latest
        if (!pod.spec.initContainers.isNullOrEmpty()) {
            reportUnrunnable(pod, "init containers are not supported by the local node agent")
            return null
        }
        val ip = services.addresses.claimOrAllocate(pod.status?.podIP)
        val handle =
            try {
                services.createNetwork(pod, ip)
            } catch (e: HostCommandException) {
                services.addresses.release(ip)
                log.warnWith("pod network setup failed", "namespace" to namespace, "pod" to name, error = e)
                reportUnrunnable(pod, "pod network setup failed: ${e.message}")
                return null
            }
        network = handle
        val dir = services.podDir(pod)
        val saDir = if (services.serviceAccounts.wanted(pod)) dir.resolve("serviceaccount") else null
        if (saDir != null) {
            tokenRefreshAt =
                try {
                    services.serviceAccounts.write(pod, saDir)
                } catch (e: KubernetesClientException) {
                    log.warnWith("service account token request failed", fields(), error = e)
                    Instant.now().plus(TOKEN_RETRY)
                }
        }
        return PodContext(
            pod = pod,
            config = services.config,
            tools = services.tools,
            network = handle,
            dir = dir,
            serviceAccountDir = saDir,
            configValues = services.configValues,
            events = services.events,
            volumes = services.volumes(pod),
        )
    }

    /**
     * Fails the pod once it has been active longer than `activeDeadlineSeconds` (read again every
     * second: it may be set or shortened on a running pod): status Failed with reason
     * DeadlineExceeded at once, then its containers are stopped within the pod's grace period.
     * A pod whose containers all finished first is left alone, as the kubelet leaves it.
     */
    private suspend fun enforceActiveDeadline() {
        while (true) {
            if (PodPhases.isTerminal(PodPhases.compute(runners.map { it.snapshot() }))) return
            val left = ActiveDeadline.remaining(latest, startTime, Instant.now())
            if (left != null && left <= Duration.ZERO) break
            delay((left ?: DEADLINE_CHECK).coerceAtMost(DEADLINE_CHECK).toMillis())
        }
        val deadline = "activeDeadlineSeconds" to latest.spec.activeDeadlineSeconds
        log.infoWith("pod active deadline exceeded", fields() + deadline)
        failure = PodFailure(ActiveDeadline.REASON, ActiveDeadline.MESSAGE)
        services.events.normal(latest, null, ActiveDeadline.REASON, ActiveDeadline.MESSAGE)
        syncRequests.trySend(Unit)
        stopContainers(TerminationGrace.forActiveDeadline(latest))
    }

    private suspend fun refreshToken(ready: PodContext) {
        var next = tokenRefreshAt
        while (true) {
            delay(Duration.between(Instant.now(), next).toMillis().coerceAtLeast(0))
            next =
                try {
                    services.serviceAccounts.write(ready.pod, ready.serviceAccountDir!!)
                } catch (e: KubernetesClientException) {
                    log.warnWith("service account token refresh failed", fields(), error = e)
                    Instant.now().plus(TOKEN_RETRY)
                } catch (e: IOException) {
                    log.warnWith("service account token write failed", fields(), error = e)
                    Instant.now().plus(TOKEN_RETRY)
                }
        }
    }

    /** Writes the pod's status if it changed; called on every change and every [RESYNC], else it writes nothing. */
    private fun writeStatus(ready: PodContext) {
        if (latest.metadata.deletionTimestamp != null || leaveStatusAlone) return
        val pod = statusSync.current(latest)
        val snapshots = runners.map { it.snapshot() }
        val observed = PodObservation(snapshots, ready.ip, services.config.bridgeIp, startTime, failure)
        statusSync.write(pod, PodStatusPatch.build(pod, observed, Instant.now()))
    }

    private fun reportUnrunnable(pod: Pod, message: String) {
        val snapshots =
            pod.spec.containers.map {
                ContainerSnapshot(it.name, it.image, RunState.Waiting("CreateContainerConfigError", message))
            }
        val observed = PodObservation(snapshots, null, services.config.bridgeIp, startTime)
        val current = statusSync.current(pod)
        statusSync.write(current, PodStatusPatch.build(current, observed, Instant.now()))
    }

    /**
     * The kubelet's teardown: SIGTERM every container, wait up to [grace], SIGKILL what is left
     * (everything in the pod's network namespace), remove the namespace and veth, give the address back.
     */
    suspend fun stop(grace: Duration, agentStopping: Boolean = false) {
        leaveStatusAlone = agentStopping
        log.infoWith("stopping pod", "namespace" to namespace, "pod" to name, "graceSeconds" to grace.seconds)
        stopContainers(grace)
        job?.cancelAndJoin()
        services.policies.detach(uid)
        network?.let {
            services.network.remove(it.netns, it.hostVeth, it.ip)
            services.addresses.release(it.ip)
        }
        services.forget(latest, podGone = !agentStopping)
        log.infoWith("pod stopped", "namespace" to namespace, "pod" to name)
    }

    /** A second deletion with a shorter grace period (a force delete) cuts the running [stop] short. */
    suspend fun hurry(grace: Duration) {
        log.infoWith("stopping pod sooner", "namespace" to namespace, "pod" to name, "graceSeconds" to grace.seconds)
        stopContainers(grace)
    }

    private suspend fun stopContainers(grace: Duration) {
        coroutineScope { runners.forEach { launch { it.stop(grace) } } }
    }

    private fun fields() = listOf("namespace" to namespace, "pod" to name)

    /**
     * Worker boundary: an unexpected error is logged and this one step ends, instead of silently
     * killing the pod's coroutine and leaving its status stale. Cancellation passes through.
     * Returns whether the step completed.
     */
    @Suppress("TooGenericExceptionCaught")
    private suspend fun atBoundary(what: String, step: suspend () -> Unit): Boolean =
        try {
            step()
            true
        } catch (e: CancellationException) {
            throw e
        } catch (e: RuntimeException) {
            log.warnWith(what, fields(), error = e)
            false
        }

    private companion object {
        val RESYNC: Duration = Duration.ofSeconds(15)

        /** How soon a new or shortened activeDeadlineSeconds is noticed. */
        val DEADLINE_CHECK: Duration = Duration.ofSeconds(1)
        val TOKEN_RETRY: Duration = Duration.ofSeconds(30)
    }
}
