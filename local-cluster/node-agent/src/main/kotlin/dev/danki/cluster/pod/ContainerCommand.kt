package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Container

/**
 * The host command line that runs a container: in its own session (so its process group can be
 * signalled as a whole), inside the pod's network namespace, and, when the pod mounts a
 * service-account token, with the pod's token folder bind-mounted where in-cluster clients look.
 * `ip netns exec` already gives the process a private mount namespace, so the mount stays inside.
 */
object ContainerCommand {
    /** Where the ServiceAccount admission plugin mounts the token; in-cluster clients read it there. */
    const val SERVICE_ACCOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"

    /** Exit status of the launch script when the token mount fails (kubelet-like RunContainerError). */
    const val MOUNT_FAILED_EXIT = 111

    private val LAUNCH_SCRIPT =
        """
        if [ -n "${'$'}1" ]; then
          mkdir -p "${'$'}2" && mount --bind -o ro "${'$'}1" "${'$'}2" ||
            { echo "cannot mount ${'$'}1 at ${'$'}2" >&2; exit $MOUNT_FAILED_EXIT; }
        fi
        shift 2
        exec "${'$'}@"
        """.trimIndent()

    fun argv(
        context: PodContext,
        container: Container,
        spec: LaunchSpec,
    ): List<String> {
        val mountsToken = container.volumeMounts.orEmpty().any { it.mountPath == SERVICE_ACCOUNT_PATH }
        val tokenDir = context.serviceAccountDir?.takeIf { mountsToken }?.toString() ?: ""
        val tools = context.tools
        return listOf(
            tools.setsid,
            tools.ip,
            "netns",
            "exec",
            context.netns,
            tools.sh,
            "-c",
            LAUNCH_SCRIPT,
            "launch",
            tokenDir,
            SERVICE_ACCOUNT_PATH,
        ) +
            spec.argv
    }
}
