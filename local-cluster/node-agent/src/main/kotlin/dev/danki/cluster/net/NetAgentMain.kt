package dev.danki.cluster.net

import dev.danki.cluster.AgentProcess

/** Starts the net agent of a real-kubelet instance; it runs until SIGTERM, then removes its host table. */
fun main(args: Array<String>) {
    val config = AgentProcess.settings("net-agent") { NetAgentConfig.parse(args) }
    AgentProcess.run(config.kubeconfig) { client -> NetAgent(config, client) }
}
