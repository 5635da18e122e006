package dev.danki.cli

import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.io.File

/** Makes the client the way kubectl finds its cluster: KUBECONFIG, ~/.kube/config, or in-cluster. */
object KubeClients {
    fun fromEnvironment(): KubernetesClient {
        val kubeconfig = System.getenv("KUBECONFIG")?.split(File.pathSeparator)?.filter { it.isNotBlank() }
        val files = kubeconfig ?: listOf(File(System.getProperty("user.home"), ".kube/config").path)
        val inCluster = System.getenv("KUBERNETES_SERVICE_HOST") != null
        if (!inCluster && files.none { File(it).isFile }) {
            throw CliFailure(
                ExitCode.NO_CLUSTER,
                "no cluster configured: no kubeconfig at ${files.joinToString()}",
                "point KUBECONFIG at your cluster's kubeconfig (for the local cluster: make cluster-up, " +
                    "then export KUBECONFIG=\$PWD/.cluster/admin.kubeconfig)",
            )
        }
        return KubernetesClientBuilder().withConfig(Config.autoConfigure(null)).build()
    }
}
