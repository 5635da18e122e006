package dev.danki.cli.it

import io.fabric8.kubeapitest.KubeAPIServer
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
import io.fabric8.kubernetes.client.Config
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import io.fabric8.kubernetes.client.dsl.Resource
import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * One real etcd + kube-apiserver (fabric8 kube-api-test, offline, RBAC on) for the CLI's ITs. Unlike
 * the operator's, it starts without danki's CRDs, so a test can see the CLI's "not installed" answer;
 * [installCrds] adds them, [uninstallCrds] takes them away again.
 */
object CliApiServer {
    val repo: File = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    private val version = System.getenv("K8S_VERSION")?.removePrefix("v") ?: "1.37.1"
    private val server: KubeAPIServer by lazy { start() }

    /** danki's CRDs, by plural, as the operator build generates them into [GENERATED]. */
    val CRDS = listOf("warmupruns", "warmuphistories")
    private const val CLEANUP_SECONDS = 20L
    private const val CRD_GONE_SECONDS = 30L
    private const val GENERATED = "operator/target/classes/META-INF/fabric8"

    /** The kubeconfig of the cluster admin (system:masters). */
    val kubeconfig: String get() = server.kubeConfigYaml

    fun client(impersonate: String? = null): KubernetesClient {
        val config = Config.fromKubeconfig(kubeconfig)
        if (impersonate != null) config.requestConfig.impersonateUsername = impersonate
        return KubernetesClientBuilder().withConfig(config).build()
    }

    /** Installs [plurals]' CRDs and waits until the API serves them. */
    fun installCrds(plurals: List<String> = CRDS) {
        client().use { client ->
            for (plural in plurals) {
                val crd = crds(client).load(File(repo, "$GENERATED/$plural.danki.dev-v1.yml")).item()
                // one still terminating would take the update and then vanish
                val existing = crds(client).withName(crd.metadata.name)
                if (existing.get()?.metadata?.deletionTimestamp != null) awaitGone(existing)
                client.resource<CustomResourceDefinition>(crd).createOr { it.update() }
                existing.waitUntilCondition(
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
        }
    }

    /** Removes [plurals]' CRDs (and so every object of theirs) and waits until they are gone. */
    fun uninstallCrds(plurals: List<String> = CRDS) {
        client().use { client ->
            for (plural in plurals) {
                val crd = crds(client).withName("$plural.danki.dev")
                crd.delete()
                awaitGone(crd)
            }
        }
    }

    /**
     * The API server deletes every object of a CRD before the CRD itself (its finalizer
     * customresourcecleanup). In two make test runs on fresh clones that took over 120 s (the CRD went
     * minutes later; elsewhere it takes under a second), and the tests after it met a terminating CRD.
     * These tests ask how the CLI meets a missing CRD, not how fast the API server cleans up, so past a
     * short wait the finalizer is dropped: the CRD goes at once, and its objects, each in a namespace
     * of a test already done, stay unreachable.
     */
    private fun awaitGone(crd: Resource<CustomResourceDefinition>) {
        val cleanedUp = runCatching { crd.waitUntilCondition({ it == null }, CLEANUP_SECONDS, TimeUnit.SECONDS) }
        if (cleanedUp.isSuccess || crd.get() == null) return
        crd.edit { c -> c.apply { metadata.finalizers = emptyList() } }
        crd.waitUntilCondition({ it == null }, CRD_GONE_SECONDS, TimeUnit.SECONDS)
    }

    private fun crds(client: KubernetesClient) = client.apiextensions().v1().customResourceDefinitions()

    private fun start(): KubeAPIServer {
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
        Runtime.getRuntime().addShutdownHook(Thread { server.stop() })
        return server
    }
}
