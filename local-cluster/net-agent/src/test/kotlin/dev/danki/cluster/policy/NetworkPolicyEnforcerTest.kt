package dev.danki.cluster.policy

import dev.danki.cluster.network.HostCommandException
import dev.danki.cluster.network.PodNetworkHandle
import io.fabric8.kubernetes.api.model.LabelSelector
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.util.Collections
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class NetworkPolicyEnforcerTest {
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.IO)
    private val loads: MutableList<Pair<String, String>> = Collections.synchronizedList(mutableListOf())
    private val policies = mutableListOf<NetworkPolicy>()
    private val pods = mutableListOf<Pod>()
    private val sources =
        object : PolicySources {
            override fun policies() = policies.toList()

            override fun pods() = pods.toList()

            override fun namespaces() = emptyList<Namespace>()
        }

    @AfterTest
    fun stop() = scope.cancel()

    private fun pod(name: String, ip: String): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("shop")
            .withUid("u-$name")
            .addToLabels("app", name)
            .endMetadata()
            .withNewStatus()
            .withPodIP(ip)
            .endStatus()
            .build()

    private val denyAll: NetworkPolicy =
        NetworkPolicyBuilder()
            .withNewMetadata()
            .withName("deny")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .withPodSelector(LabelSelector())
            .withPolicyTypes("Ingress")
            .endSpec()
            .build()

    private fun enforcer(loader: RulesetLoader = RulesetLoader { netns, script -> loads += netns to script }) =
        NetworkPolicyEnforcer({ it.ip.substringBeforeLast('.') + ".1" }, loader, scope, sources).also { it.start() }

    private suspend fun until(condition: () -> Boolean) = withTimeout(TIMEOUT_MILLIS) { while (!condition()) delay(20) }

    @Test
    fun `a pod no policy selects never needs nft`() =
        runBlocking {
            val web = pod("web", "198.18.0.2").also { pods += it }
            enforcer().attach(web, PodNetworkHandle("danki0-web", "198.18.0.2"))
            delay(200)
            assertEquals(emptyList(), loads.toList())
        }

    @Test
    fun `a selected pod gets its rules before it starts, and a policy change replaces them`() =
        runBlocking {
            policies += denyAll
            val web = pod("web", "198.18.0.2").also { pods += it }
            val enforcer = enforcer()
            enforcer.attach(web, PodNetworkHandle("danki0-web", "198.18.0.2"))
            assertEquals("danki0-web", loads.single().first)
            assertContains(loads.single().second, "policy drop;")
            policies.clear()
            enforcer.onChange.onDelete(denyAll, false)
            until { loads.size == 2 }
            assertEquals("table inet danki\ndelete table inet danki\n", loads[1].second)
        }

    @Test
    fun `rules that cannot be loaded keep the pod from starting`() =
        runBlocking {
            policies += denyAll
            val web = pod("web", "198.18.0.2").also { pods += it }
            val enforcer = enforcer { _, _ -> throw HostCommandException("nft not found") }
            assertFailsWith<HostCommandException> {
                enforcer.attach(web, PodNetworkHandle("danki0-web", "198.18.0.2"))
            }
            Unit
        }

    @Test
    fun `each pod's rules admit its own node, as nodes differ`() =
        runBlocking {
            policies += denyAll
            val enforcer = enforcer()
            enforcer.attach(pod("web", "198.19.8.2").also { pods += it }, PodNetworkHandle("/ns/web", "198.19.8.2"))
            enforcer.attach(pod("db", "198.19.9.2").also { pods += it }, PodNetworkHandle("/ns/db", "198.19.9.2"))
            assertContains(loads.first { it.first == "/ns/web" }.second, "ip saddr 198.19.8.1 accept")
            assertContains(loads.first { it.first == "/ns/db" }.second, "ip saddr 198.19.9.1 accept")
        }

    @Test
    fun `a reattached pod gets its table replaced even when no policy selects it`() =
        runBlocking {
            val web = pod("web", "198.18.0.2").also { pods += it }
            enforcer().reattach(web, PodNetworkHandle("/ns/web", "198.18.0.2"))
            assertEquals(listOf("/ns/web" to "table inet danki\ndelete table inet danki\n"), loads.toList())
        }

    private companion object {
        const val TIMEOUT_MILLIS = 5_000L
    }
}
