package dev.danki.cluster

import dev.danki.cluster.config.AgentArguments
import dev.danki.cluster.config.BadArgumentsException
import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.nio.file.Files
import java.util.concurrent.CountDownLatch
import kotlin.system.exitProcess

/** Starts the node agent; it runs until SIGTERM, then stops its pods and cleans up. */
fun main(args: Array<String>) {
    val config =
        try {
            AgentArguments.parse(args)
        } catch (e: BadArgumentsException) {
            System.err.println("node-agent: bad arguments:\n  " + e.problems.joinToString("\n  "))
            exitProcess(2)
        }
    val kubeconfig = Config.fromKubeconfig(Files.readString(config.kubeconfig))
    val client = KubernetesClientBuilder().withConfig(kubeconfig).build()
    val agent = NodeAgent(config, client)
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
