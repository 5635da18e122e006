package dev.danki.cluster.net

import java.nio.file.Path

/**
 * Everything the net agent of one real-kubelet instance needs; node-up.sh passes every field as a
 * `--name=value` argument.
 */
data class NetAgentConfig(
    /** Admin kubeconfig of the instance: the agent reads pods, policies, Services and EndpointSlices. */
    val kubeconfig: Path,
    /** Instance number (0..31, kubelet/node-env.sh): names the host table and the bridges whose traffic it handles. */
    val instance: Int,
    /** Loopback port of the agent's HTTP endpoint, which the CNI plugin calls. */
    val port: Int,
    /** Where the agent records the pods it attached, so a restarted agent finds their namespaces. */
    val stateFile: Path,
    /** Where the `kubernetes` Service leads (`ip:port`): its Endpoints are not maintained here. */
    val apiEndpoint: Endpoint,
    /** The Service range; traffic to an address in it that no Service port takes is refused. */
    val serviceCidr: String,
) {
    /** The host's nftables table of this instance (one per instance: kube-proxy's fixed name would be shared). */
    val table: String get() = "danki-r$instance"

    /** Interface name pattern of this instance's bridges (`dkr<I>-<K>`); only their traffic is translated. */
    val bridges: String get() = "dkr$instance-*"

    companion object {
        private val REQUIRED = listOf("kubeconfig", "instance", "port", "state-file", "api-endpoint", "service-cidr")
        private val INSTANCES = 0..31
        private const val MAX_PORT = 65535

        /** Parses `--name=value` arguments, collecting every problem before failing. */
        fun parse(args: Array<String>): NetAgentConfig {
            val problems = mutableListOf<String>()
            val values = mutableMapOf<String, String>()
            for (arg in args) {
                val match = Regex("--([a-z-]+)=(.*)").matchEntire(arg)
                when {
                    match == null -> problems += "argument '$arg' is not of the form --name=value"
                    match.groupValues[1] !in REQUIRED -> problems += "unknown argument --${match.groupValues[1]}"
                    else -> values[match.groupValues[1]] = match.groupValues[2]
                }
            }
            REQUIRED.filter { values[it].isNullOrBlank() }.forEach { problems += "missing --$it" }
            val instance = values["instance"]?.toIntOrNull()
            if (values["instance"] != null &&
                instance !in INSTANCES
            ) {
                problems += "--instance must be a number from 0 to 31"
            }
            val port = values["port"]?.toIntOrNull()
            if (values["port"] != null &&
                (port == null || port !in 1..MAX_PORT)
            ) {
                problems += "--port must be a port number"
            }
            val api = values["api-endpoint"]?.let(Endpoint::parse)
            if (values["api-endpoint"] != null && api == null) problems += "--api-endpoint must be ip:port"
            if (problems.isNotEmpty()) throw BadArgumentsException(problems)
            return NetAgentConfig(
                kubeconfig = Path.of(values.getValue("kubeconfig")),
                instance = instance!!,
                port = port!!,
                stateFile = Path.of(values.getValue("state-file")),
                apiEndpoint = api!!,
                serviceCidr = values.getValue("service-cidr"),
            )
        }
    }
}

/** An IPv4 address and a port. */
data class Endpoint(
    val ip: String,
    val port: Int,
) {
    override fun toString() = "$ip:$port"

    companion object {
        /** `a.b.c.d:port`, or null. */
        fun parse(text: String): Endpoint? {
            val match = Regex("""(\d+\.\d+\.\d+\.\d+):(\d+)""").matchEntire(text) ?: return null
            return Endpoint(match.groupValues[1], match.groupValues[2].toInt())
        }
    }
}
