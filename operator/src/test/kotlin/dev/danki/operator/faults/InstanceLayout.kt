package dev.danki.operator.faults

import com.fasterxml.jackson.databind.ObjectMapper
import java.io.File

/**
 * Where an instance of the local cluster puts its pods, as its scripts lay it out: a /24 per node
 * (198.19.<instance * 8 + node - 1>.0/24, kubelet/node-env.sh), and the net agent's record of the
 * network namespaces it attached.
 */
class InstanceLayout(
    private val clusterDir: File,
    instance: Int,
) {
    /** The first three octets (with the dot) of every pod address the instance can hand out. */
    val podPrefixes: List<String> = (0 until NODE_SLOTS).map { "198.19.${instance * NODE_SLOTS + it}." }

    /**
     * "namespace/name" of each pod the net agent still holds a network namespace for (its state
     * file, net-agent/attachments.json), with the pod's uid.
     */
    fun attachedPods(): Map<String, String> {
        val state = File(clusterDir, "net-agent/attachments.json")
        if (!state.isFile) return emptyMap()
        return ObjectMapper().readTree(state).associate {
            "${it["namespace"].asText()}/${it["name"].asText()}" to
                it["uid"].asText()
        }
    }

    companion object {
        /** Nodes per instance (node-env.sh). */
        const val NODE_SLOTS = 8

        /** The instance's folder as cluster-env.sh picks it: CLUSTER_DIR, else .cluster (0) or .cluster/instance-N. */
        fun of(repo: File, instance: Int): InstanceLayout {
            val dir =
                System.getenv("CLUSTER_DIR")?.let(::File)
                    ?: if (instance == 0) File(repo, ".cluster") else File(repo, ".cluster/instance-$instance")
            return InstanceLayout(dir, instance)
        }
    }
}
