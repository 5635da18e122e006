package dev.danki.cluster

import dev.danki.cluster.config.AgentArguments

/** Starts the node agent; it runs until SIGTERM, then stops its pods and cleans up. */
fun main(args: Array<String>) {
    val config = AgentProcess.settings("node-agent") { AgentArguments.parse(args) }
    AgentProcess.run(config.kubeconfig) { client -> NodeAgent(config, client) }
}
