package dev.danki.cluster.net

import dev.danki.cluster.logging.infoWith
import dev.danki.cluster.logging.warnWith
import dev.danki.cluster.network.HostCommand
import dev.danki.cluster.network.HostCommandException
import io.fabric8.kubernetes.api.model.Service
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.informers.ResourceEventHandler
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.slf4j.LoggerFactory
import java.time.Duration

/**
 * Keeps the instance's host table ([ServiceRuleset]) in step with Services and EndpointSlices,
 * watched by fabric8 informers: any change re-renders the table, which is loaded when it differs.
 */
class ServiceProxy(
    private val client: KubernetesClient,
    private val config: NetAgentConfig,
    private val nft: String,
    private val scope: CoroutineScope,
) {
    private val log = LoggerFactory.getLogger(ServiceProxy::class.java)
    private val changes = Channel<Unit>(Channel.CONFLATED)
    private var services: SharedIndexInformer<Service>? = null
    private var slices: SharedIndexInformer<EndpointSlice>? = null
    private var loaded: String? = null

    private val onChange =
        object : ResourceEventHandler<Any> {
            override fun onAdd(obj: Any) {
                changes.trySend(Unit)
            }

            override fun onUpdate(old: Any?, new: Any) {
                changes.trySend(Unit)
            }

            override fun onDelete(obj: Any, deletedFinalStateUnknown: Boolean) {
                changes.trySend(Unit)
            }
        }

    /** Watches Services and EndpointSlices, loads the table once both caches are filled, then follows changes. */
    fun start() {
        services = client.services().inAnyNamespace().inform(onChange, NO_RESYNC)
        slices =
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inAnyNamespace()
                .inform(onChange, NO_RESYNC)
        scope.launch { follow() }
        try {
            sync()
        } catch (e: HostCommandException) {
            log.warnWith("service table not loaded", "table" to config.table, error = e)
            changes.trySend(Unit)
        }
    }

    /** The worker's boundary: a table nft refuses is logged and tried again after [RETRY]. */
    private suspend fun follow() {
        while (true) {
            changes.receive()
            delay(COALESCE.toMillis())
            try {
                sync()
            } catch (e: CancellationException) {
                throw e
            } catch (e: HostCommandException) {
                log.warnWith("service table not loaded", "table" to config.table, error = e)
                scope.launch { delay(RETRY.toMillis()).also { changes.trySend(Unit) } }
            }
        }
    }

    @Synchronized
    private fun sync() {
        val ports =
            ServicePorts.of(
                services?.store?.list().orEmpty(),
                slices?.store?.list().orEmpty(),
                config.apiEndpoint,
            )
        val script = ServiceRuleset.render(ports, config.table, config.bridges, config.serviceCidr)
        if (script == loaded) return
        HostCommand.runWithInput(script, nft, "-f", "-")
        loaded = script
        log.infoWith(
            "service table loaded",
            "table" to config.table,
            "servicePorts" to ports.size,
            "endpoints" to ports.sumOf { it.backends.size },
        )
    }

    /** Stops watching and removes the table: nothing of the instance stays in the host's firewall. */
    fun stop() {
        services?.stop()
        slices?.stop()
        HostCommand.tryRun(nft, "delete", "table", "ip", config.table)
        log.infoWith("service table removed", "table" to config.table)
    }

    private companion object {
        /** Every change arrives as an event; a periodic replay would only render the same table. */
        const val NO_RESYNC = 0L

        /** A scale-up's EndpointSlice updates come together and are loaded together. */
        val COALESCE: Duration = Duration.ofMillis(50)

        /** A table nft refused is tried again after this, even without a change. */
        val RETRY: Duration = Duration.ofSeconds(5)
    }
}
