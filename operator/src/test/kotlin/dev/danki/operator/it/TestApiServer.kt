package dev.danki.operator.it

import io.fabric8.kubeapitest.KubeAPIServer
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * One real etcd + kube-apiserver per test JVM (fabric8 kube-api-test, offline), with the WarmupRun
 * CRD installed. The binaries are the repo's pinned ones in bin/, linked where kube-api-test looks.
 */
object TestApiServer {
    val repo: File = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    private val version = System.getenv("K8S_VERSION")?.removePrefix("v") ?: "1.37.1"

    val client: KubernetesClient by lazy { start() }

    /** The server's kubeconfig, for a process of its own (a benchmark's operator): set once [client] started. */
    lateinit var kubeconfig: String
        private set

    private fun start(): KubernetesClient {
        val dir = File(System.getenv("KUBE_API_TEST_DIR") ?: File(repo, "operator/target/kube-api-test").path)
        val bin = File(dir, "k8s/$version-linux-amd64").apply { mkdirs() }
        for (tool in listOf("etcd", "kube-apiserver", "kubectl")) {
            val link = File(bin, tool).toPath()
            val target = File(repo, "bin/$tool")
            require(target.canExecute()) { "$target is missing: run `make tool-kube` first" }
            if (!Files.exists(link)) Files.createSymbolicLink(link, target.toPath())
        }
        val server =
            KubeAPIServer(
                KubeAPIServerConfigBuilder
                    .anAPIServerConfig()
                    .withTestDir(dir.path)
                    .withApiServerVersion(version)
                    .withOfflineMode(true)
                    .withUpdateKubeConfig(false)
                    .build(),
            )
        server.start()
        kubeconfig = server.kubeConfigYaml
        Runtime.getRuntime().addShutdownHook(Thread { server.stop() })
        val client = KubernetesClientBuilder().withConfig(Config.fromKubeconfig(server.kubeConfigYaml)).build()
        for (crd in GeneratedCrds.load(client, repo)) {
            client.resource<CustomResourceDefinition>(crd).create()
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(crd.metadata.name)
                .waitUntilCondition(
                    { c ->
                        c.status
                            ?.conditions
                            .orEmpty()
                            .any { it.type == "Established" && it.status == "True" }
                    },
                    30,
                    TimeUnit.SECONDS,
                )
        }
        return client
    }
}
