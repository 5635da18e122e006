package dev.danki.cli.it

import dev.danki.cli.ExitCode
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.client.KubernetesClientBuilder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestMethodOrder

/** Every error the CLI names, against a real kube-apiserver: the problem, the next step, the exit code. */
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class CliErrorsIT {
    private val admin = CliApiServer.client()

    @Test
    @Order(1)
    fun `without the CRD report says danki is not installed and how to install it`() {
        // another IT class may have run first and installed them
        CliApiServer.uninstallCrds()
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web")).create()

        val run = CliRun.of("report", "deployment/web", "-n", ns)

        run.code shouldBe ExitCode.NO_CRD.code
        run.err shouldContain "warmupruns.danki.dev) is not installed"
        run.err shouldContain "helm install danki"
    }

    @Test
    @Order(2)
    fun `a missing Deployment is named with the command that lists the real ones`() {
        CliApiServer.installCrds()
        val ns = Fixtures.namespace(admin)

        val run = CliRun.of("prewarm", "deployment/nope", "--replicas", "2", "-n", ns)

        run.code shouldBe ExitCode.NOT_FOUND.code
        run.err shouldContain "deployment/nope in namespace $ns does not exist"
        run.err shouldContain "kubectl get deployments -n $ns"
    }

    @Test
    @Order(3)
    fun `a Deployment that is not opted in gets the exact annotate command and is not scaled`() {
        CliApiServer.installCrds()
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "cold", optedIn = false)).create()

        val run = CliRun.of("prewarm", "deploy/cold", "--replicas", "3", "-n", ns)

        run.code shouldBe ExitCode.NOT_OPTED_IN.code
        run.err shouldContain "kubectl annotate deployment/cold -n $ns ${Keys.Annotations.WARMUP}=enabled --overwrite"
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("cold")
            .get()
            .spec.replicas shouldBe 1
    }

    @Test
    @Order(4)
    fun `RBAC denied names the request and how to see what is allowed`() {
        CliApiServer.installCrds()
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web")).create()
        // alice may read Deployments but not WarmupRuns
        Fixtures.grant(admin, ns, "alice", Fixtures.rule("apps", "get", "deployments"))

        val run = CliRun.of("report", "deployment/web", "-n", ns) { CliApiServer.client(impersonate = "alice") }

        run.code shouldBe ExitCode.FORBIDDEN.code
        run.err shouldContain "RBAC denied 'list WarmupRuns in namespace $ns'"
        run.err shouldContain "kubectl auth can-i --list"
    }

    @Test
    @Order(5)
    fun `an unreachable API server is said to be unreachable`() {
        val run =
            CliRun.of("report", "deployment/web", "-n", "default") {
                KubernetesClientBuilder()
                    .withConfig(
                        io.fabric8.kubernetes.client
                            .ConfigBuilder()
                            .withMasterUrl("https://127.0.0.1:1")
                            .withRequestRetryBackoffLimit(0)
                            .build(),
                    ).build()
            }

        run.code shouldBe ExitCode.NO_CLUSTER.code
        run.err shouldContain "cannot reach a Kubernetes API server"
    }
}
