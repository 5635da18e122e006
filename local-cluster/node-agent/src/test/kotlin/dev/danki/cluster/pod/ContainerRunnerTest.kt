package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.status.RunState
import dev.danki.cluster.volume.PodVolumes
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertIs

class ContainerRunnerTest {
    private val dir: Path = Files.createTempDirectory("container-runner-test")
    private val events = RecordedEvents()
    private val launches = AtomicInteger()
    private val started = Collections.synchronizedList(mutableListOf<Process>())
    private val container: Container = ContainerBuilder().withName("app").withImage("test/sleeper:1").build()

    @AfterTest
    fun cleanUp() {
        started.forEach { it.destroyForcibly() }
        dir.toFile().deleteRecursively()
    }

    /** Fails the first [failures] starts as fork does under load (EAGAIN), then starts a real process. */
    private fun launcher(failures: Int): (ProcessBuilder) -> Process =
        {
            if (launches.incrementAndGet() <= failures) throw IOException("error=11, Resource temporarily unavailable")
            ProcessBuilder("sleep", "600").start().also { started += it }
        }

    @Test
    fun `a process that fails to start is started again`() =
        runBlocking<Unit> {
            val runner = ContainerRunner(context(pod("Always")), container, {}, launcher(failures = 1))
            val running = launch(Dispatchers.IO) { runner.run() }
            until { "Started" in events.reasons }
            assertIs<RunState.Running>(runner.snapshot().state)
            assertEquals(2, launches.get())
            assertEquals("StartError", runner.snapshot().lastTermination?.reason)
            assertEquals(listOf("Failed", "Started"), events.reasons)
            runner.stop(Duration.ZERO)
            withTimeout(TIMEOUT_MILLIS) { running.join() }
            assertIs<RunState.Terminated>(runner.snapshot().state)
        }

    @Test
    fun `with restartPolicy Never a failed start ends the container`() =
        runBlocking {
            val runner = ContainerRunner(context(pod("Never")), container, {}, launcher(failures = 1))
            withTimeout(TIMEOUT_MILLIS) { runner.run() }
            val state = assertIs<RunState.Terminated>(runner.snapshot().state)
            assertEquals(128, state.exitCode)
            assertEquals("StartError", state.reason)
            assertEquals(1, launches.get())
        }

    @Test
    fun `run again after a failure adopts the running process instead of starting another`() =
        runBlocking {
            val runner = ContainerRunner(context(pod("Always")), container, {}, launcher(failures = 0))
            val first = launch(Dispatchers.IO) { runner.run() }
            until { runner.snapshot().state is RunState.Running }
            first.cancelAndJoin()
            val second = launch(Dispatchers.IO) { runner.run() }
            delay(300)
            assertEquals(1, launches.get())
            assertIs<RunState.Running>(runner.snapshot().state)
            runner.stop(Duration.ZERO)
            withTimeout(TIMEOUT_MILLIS) { second.join() }
        }

    @Test
    fun `a container with a readiness probe is never reported ready before the probe passed`() =
        runBlocking {
            // the probe's first run is 600 s away, so it never passes (and sends nothing) in this test
            val probed =
                ContainerBuilder(container)
                    .withNewReadinessProbe()
                    .withInitialDelaySeconds(600)
                    .withNewTcpSocket()
                    .withHost("127.0.0.1")
                    .withNewPort(1)
                    .endTcpSocket()
                    .endReadinessProbe()
                    .build()
            val seen = Collections.synchronizedList(mutableListOf<Boolean>())
            lateinit var runner: ContainerRunner
            val recordReady = { seen += runner.snapshot().ready }
            runner = ContainerRunner(context(pod("Always", probed)), probed, { recordReady() }, launcher(0))
            val running = launch(Dispatchers.IO) { runner.run() }
            until { runner.snapshot().state is RunState.Running }
            delay(300)
            assertEquals(listOf(false), (seen + runner.snapshot().ready).distinct())
            runner.stop(Duration.ZERO)
            withTimeout(TIMEOUT_MILLIS) { running.join() }
        }

    @Test
    fun `a container without probes is ready once it runs`() =
        runBlocking {
            val runner = ContainerRunner(context(pod("Always")), container, {}, launcher(failures = 0))
            val running = launch(Dispatchers.IO) { runner.run() }
            until { runner.snapshot().state is RunState.Running }
            assertEquals(true, runner.snapshot().ready)
            runner.stop(Duration.ZERO)
            withTimeout(TIMEOUT_MILLIS) { running.join() }
        }

    private suspend fun until(condition: () -> Boolean) = withTimeout(TIMEOUT_MILLIS) { while (!condition()) delay(20) }

    private fun pod(restartPolicy: String, podContainer: Container = container): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .withNamespace("test")
            .withUid("0b5e3f4a-0000-0000-0000-000000000001")
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy(restartPolicy)
            .withContainers(podContainer)
            .endSpec()
            .build()

    private fun context(pod: Pod): PodContext {
        val catalog = dir.resolve("images.yaml")
        Files.writeString(catalog, "images:\n  test/sleeper:1:\n    command: [sleep, '600']\n")
        val config =
            AgentConfig(
                kubeconfig = dir.resolve("kubeconfig"),
                nodeName = "danki99-node",
                instance = 99,
                bridge = "danki99",
                bridgeIp = "198.18.99.1",
                podCidr = "198.18.99.0/24",
                apiPort = 6542,
                caFile = dir.resolve("ca.crt"),
                repo = dir,
                catalog = catalog,
                stateDir = dir,
            )
        return PodContext(
            pod = pod,
            config = config,
            tools = HostTools("setsid", "ip", "sh"),
            network = PodNetworkHandle("danki99-0b5e3f4a", "dk99v0", "198.18.99.2"),
            dir = dir,
            serviceAccountDir = null,
            configValues = { _, _, _, _ -> null },
            events = events,
            volumes = PodVolumes(dir) { _, _, _ -> null },
        )
    }

    private class RecordedEvents : PodEventRecorder {
        val reasons: MutableList<String> = Collections.synchronizedList(mutableListOf())

        override fun normal(pod: Pod, container: String?, reason: String, message: String) {
            reasons += reason
        }

        override fun warning(pod: Pod, container: String?, reason: String, message: String) {
            reasons += reason
        }
    }

    private companion object {
        const val TIMEOUT_MILLIS = 10_000L
    }
}
