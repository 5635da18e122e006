package dev.danki.cluster.config

import java.nio.file.Path

/** Raised when the command line is incomplete or wrong; carries every problem at once. */
class BadArgumentsException(
    val problems: List<String>,
) : IllegalArgumentException(problems.joinToString("; "))

/**
 * Parses `--name=value` arguments into an [AgentConfig], collecting every problem before failing,
 * so one run shows everything that is wrong.
 */
object AgentArguments {
    private val required =
        listOf(
            "kubeconfig",
            "node-name",
            "instance",
            "bridge",
            "bridge-ip",
            "pod-cidr",
            "api-port",
            "ca-file",
            "repo",
            "catalog",
            "state-dir",
        )

    @Suppress("CyclomaticComplexMethod") // a flat list of independent checks, one per argument
    fun parse(args: Array<String>): AgentConfig {
        val problems = mutableListOf<String>()
        val values = mutableMapOf<String, String>()
        for (arg in args) {
            val match = Regex("--([a-z-]+)=(.*)").matchEntire(arg)
            if (match == null) {
                problems += "argument '$arg' is not of the form --name=value"
                continue
            }
            val (name, value) = match.destructured
            if (name !in required && name != "shutdown-grace-seconds") problems += "unknown argument --$name"
            values[name] = value
        }
        required.filter { values[it].isNullOrBlank() }.forEach { problems += "missing --$it" }
        val instance = values["instance"]?.toIntOrNull()
        if (values["instance"] != null && (instance == null || instance !in 0..MAX_INSTANCE)) {
            problems += "--instance must be a number from 0 to $MAX_INSTANCE"
        }
        val apiPort = values["api-port"]?.toIntOrNull()
        if (values["api-port"] != null && (apiPort == null || apiPort !in 1..MAX_PORT)) {
            problems += "--api-port must be a port number"
        }
        val grace =
            values["shutdown-grace-seconds"]?.let {
                it.toLongOrNull()
                    ?: -1L.also { _ -> problems += "--shutdown-grace-seconds must be a number" }
            }
        if (problems.isNotEmpty()) throw BadArgumentsException(problems)
        return AgentConfig(
            kubeconfig = Path.of(values.getValue("kubeconfig")),
            nodeName = values.getValue("node-name"),
            instance = instance!!,
            bridge = values.getValue("bridge"),
            bridgeIp = values.getValue("bridge-ip"),
            podCidr = values.getValue("pod-cidr"),
            apiPort = apiPort!!,
            caFile = Path.of(values.getValue("ca-file")),
            repo = Path.of(values.getValue("repo")).toAbsolutePath().normalize(),
            catalog = Path.of(values.getValue("catalog")),
            stateDir = Path.of(values.getValue("state-dir")),
            shutdownGraceSeconds = grace ?: AgentConfig.DEFAULT_SHUTDOWN_GRACE_SECONDS,
        )
    }

    private const val MAX_INSTANCE = 199
    private const val MAX_PORT = 65535
}
