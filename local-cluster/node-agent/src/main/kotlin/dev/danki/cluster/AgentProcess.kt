package dev.danki.cluster

import dev.danki.cluster.config.BadArgumentsException
import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CountDownLatch
import kotlin.system.exitProcess

/** What the node agent and the net agent share as processes: parsing, a client, and running until SIGTERM. */
object AgentProcess {
    /** The settings [parse] makes of the arguments; bad ones are printed under [name] and exit 2. */
    fun <T> settings(name: String, parse: () -> T): T =
        try {
            parse()
        } catch (e: BadArgumentsException) {
            System.err.println("$name: bad arguments:\n  " + e.problems.joinToString("\n  "))
            exitProcess(2)
        }

    /**
     * Starts the agent [build] makes on a client of [kubeconfig] and blocks until SIGTERM, which
     * stops the agent and then closes the client.
     */
    fun run(kubeconfig: Path, build: (KubernetesClient) -> Agent) {
        val client = KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build()
        val agent = build(client)
        val stopped = CountDownLatch(1)
        Runtime.getRuntime().addShutdownHook(
            Thread {
                agent.stop()
                client.close()
                stopped.countDown()
            },
        )
        agent.start()
        stopped.await()
    }

    /** A long-running agent: [start] returns once it runs, [stop] cleans up what it made. */
    interface Agent {
        fun start()

        fun stop()
    }
}
