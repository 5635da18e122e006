package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Container

/**
 * The host command line that runs a container: in its own session (so its process group can be
 * signalled as a whole), inside the pod's network namespace, through `container-launch.sh`, which
 * makes the container's bind mounts first. `ip netns exec` gives the process a private mount
 * namespace (a slave of the host's), so the mounts stay inside.
 */
object ContainerCommand {
    /** Where the ServiceAccount admission plugin mounts the token; in-cluster clients read it there. */
    const val SERVICE_ACCOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"

    /** Exit status of the launch script when a mount fails (kubelet-like RunContainerError). */
    const val MOUNT_FAILED_EXIT = 111

    private val LAUNCH_SCRIPT: String =
        requireNotNull(ContainerCommand::class.java.getResource("container-launch.sh")) {
            "container-launch.sh missing from the agent's jar"
        }.readText()

    fun argv(context: PodContext, container: Container, spec: LaunchSpec): List<String> {
        val tools = context.tools
        val stage = context.dir.resolve("mounts").resolve(container.name)
        val mounts = spec.mounts.flatMap { listOf(it.source.toString(), it.target, if (it.readOnly) "ro" else "rw") }
        return listOf(tools.setsid, tools.ip, "netns", "exec", context.netns, tools.sh, "-c", LAUNCH_SCRIPT, "launch") +
            listOf(stage.toString(), spec.workingDir.toString(), context.config.repo.toString()) +
            mounts + "--" + spec.argv
    }
}
