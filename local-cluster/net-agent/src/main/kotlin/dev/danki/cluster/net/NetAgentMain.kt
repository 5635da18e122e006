package dev.danki.cluster.net

import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.nio.file.Files
import java.util.concurrent.CountDownLatch
import kotlin.system.exitProcess

/** Starts the net agent of a real-kubelet instance; it runs until SIGTERM, then removes its host table. */
fun main(args: Array<String>) {
    val config = settingsOf(args)
    val kubeconfig = Config.fromKubeconfig(Files.readString(config.kubeconfig))
    val client = KubernetesClientBuilder().withConfig(kubeconfig).build()
    val agent = NetAgent(config, client)
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

/** The settings of [args]; bad ones are printed and the process exits 2, before anything starts. */
private fun settingsOf(args: Array<String>): NetAgentConfig =
    try {
        NetAgentConfig.parse(args)
    } catch (e: BadArgumentsException) {
        System.err.println("net-agent: bad arguments:\n  " + e.problems.joinToString("\n  "))
        exitProcess(2)
    }
