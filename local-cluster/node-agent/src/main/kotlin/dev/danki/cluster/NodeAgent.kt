package dev.danki.cluster

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.network.IpAllocator
import dev.danki.cluster.network.PodNetwork
import dev.danki.cluster.node.NodeLease
import dev.danki.cluster.node.NodeRegistration
import dev.danki.cluster.pod.ApiConfigValues
import dev.danki.cluster.pod.HostTools
import dev.danki.cluster.pod.PodAddresses
import dev.danki.cluster.pod.PodEvents
import dev.danki.cluster.pod.PodServices
import dev.danki.cluster.pod.PodStatusWriter
import dev.danki.cluster.pod.PodSupervisor
import dev.danki.cluster.pod.ServiceAccountFiles
import dev.danki.cluster.policy.NetworkPolicyEnforcer
import dev.danki.cluster.policy.NftCommand
import dev.danki.cluster.policy.PolicyInformers
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.slf4j.LoggerFactory
import java.time.Duration

/**
 * The node agent: registers the Node, keeps its Lease and status fresh, and runs the pods bound
 * to it. At start (leftovers of an earlier run) and at stop (after stopping its pods) it removes
 * every namespace and veth of its instance, killing any process still inside.
 */
class NodeAgent(
    private val config: AgentConfig,
    private val client: KubernetesClient,
) : AgentProcess.Agent {
    private val log = LoggerFactory.getLogger(NodeAgent::class.java)
    private val scope =
        CoroutineScope(
            SupervisorJob() + Dispatchers.IO +
                CoroutineExceptionHandler { _, error -> log.warnWith("agent task failed", error = error) },
        )
    private val network = PodNetwork(config)
    private val tools = HostTools.fromPath()
    private val policySources = PolicyInformers(client)
    private val policies =
        NetworkPolicyEnforcer({ config.bridgeIp }, NftCommand(tools.ip, tools.nft), scope, policySources)
    private val supervisor =
        PodSupervisor(
            PodServices(
                config = config,
                tools = tools,
                network = network,
                addresses = PodAddresses(IpAllocator(config.podCidr)),
                serviceAccounts = ServiceAccountFiles(client, config),
                status = PodStatusWriter(client),
                configValues = ApiConfigValues(client),
                events = PodEvents(client, config.nodeName, scope),
                policies = policies,
            ),
            scope,
        )
    private var informer: SharedIndexInformer<Pod>? = null

    /**
     * Starts everything; returns once the pod informer has synced. Policies and namespaces are
     * watched first, so that every pod starts with its NetworkPolicy rules.
     */
    override fun start() {
        val orphans = network.removeOrphans()
        log.infoWith("orphans removed", "count" to orphans, "netnsPrefix" to config.netnsPrefix)
        val registration = NodeRegistration(client, config)
        val lease = NodeLease(client, config)
        untilApiServerAnswers { registration.register() }
        lease.renew()
        val renewal = Duration.ofSeconds(NodeLease.RENEW_SECONDS)
        scope.launch { every(renewal, "node lease renewal failed") { lease.renew() } }
        scope.launch { every(STATUS_HEARTBEAT, "node status heartbeat failed") { registration.heartbeat() } }
        if (tools.nft == null) log.warnWith("nft not found: pods that a NetworkPolicy selects will not start")
        policySources.start(policies.onChange)
        policies.start()
        val pods =
            client
                .pods()
                .inAnyNamespace()
                .withField("spec.nodeName", config.nodeName)
                .runnableInformer(INFORMER_RESYNC.toMillis())
        pods.addEventHandler(supervisor)
        pods.addEventHandler(policies.onChange)
        policySources.usePods(pods)
        informer = pods
        pods.run()
        log.infoWith("node agent started", "node" to config.nodeName, "podCidr" to config.podCidr)
    }

    /** Stops every pod (each within its grace period, capped), then removes leftovers. Pods stay in the API. */
    override fun stop() {
        log.infoWith("node agent stopping", "node" to config.nodeName)
        informer?.stop()
        policySources.stop()
        val cap = Duration.ofSeconds(config.shutdownGraceSeconds)
        runBlocking { withTimeoutOrNull(cap.plusSeconds(STOP_MARGIN_SECONDS).toMillis()) { supervisor.stopAll(cap) } }
        scope.cancel()
        val orphans = network.removeOrphans()
        log.infoWith("node agent stopped", "leftoversRemoved" to orphans)
    }

    /**
     * cluster-up starts the agent together with the API server, so the JVM warms up meanwhile;
     * the first request waits for the API server, bounded by [API_WAIT].
     */
    private fun untilApiServerAnswers(action: () -> Unit) {
        val deadline = System.nanoTime() + API_WAIT.toNanos()
        while (true) {
            try {
                return action()
            } catch (e: KubernetesClientException) {
                if (System.nanoTime() > deadline) throw e
                log.infoWith("waiting for the api server", "code" to e.code, "detail" to e.message?.take(DETAIL_LENGTH))
                Thread.sleep(API_RETRY.toMillis())
            }
        }
    }

    private suspend fun every(period: Duration, failure: String, action: () -> Unit) {
        while (true) {
            delay(period.toMillis())
            try {
                action()
            } catch (e: KubernetesClientException) {
                log.warnWith(failure, "node" to config.nodeName, "code" to e.code, error = e)
            }
        }
    }

    private companion object {
        val STATUS_HEARTBEAT: Duration = Duration.ofSeconds(60)
        val INFORMER_RESYNC: Duration = Duration.ofMinutes(5)
        const val STOP_MARGIN_SECONDS = 10L
        val API_WAIT: Duration = Duration.ofSeconds(120)
        val API_RETRY: Duration = Duration.ofMillis(500)
        const val DETAIL_LENGTH = 120
    }
}
