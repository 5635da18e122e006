package dev.danki.cli.it

import dev.danki.cli.ExitCode
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * `danki prewarm` against a real kube-apiserver. No controller-manager runs here, so no pod is created:
 * following ends at --timeout, and these tests check what was changed before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrewarmIT {
    private val admin = CliApiServer.client()

    @BeforeAll
    fun crd() = CliApiServer.installCrds()

    @Test
    fun `an HPA's minReplicas is raised instead of scaling the Deployment it owns`() {
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web", replicas = 1)).create()
        admin
            .resource(
                HorizontalPodAutoscalerBuilder()
                    .withNewMetadata()
                    .withName("web-hpa")
                    .withNamespace(ns)
                    .endMetadata()
                    .withNewSpec()
                    .withMinReplicas(1)
                    .withMaxReplicas(2)
                    .withNewScaleTargetRef("apps/v1", "Deployment", "web")
                    .endSpec()
                    .build(),
            ).create()

        val run = CliRun.of("prewarm", "deployment/web", "--replicas", "4", "-n", ns, "--timeout", "2s")

        val hpa =
            admin
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(ns)
                .withName("web-hpa")
                .get()
        hpa.spec.minReplicas shouldBe 4
        hpa.spec.maxReplicas shouldBe 4
        hpa.metadata.managedFields.map { it.manager } shouldContainElement Keys.CLI_FIELD_MANAGER
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .get()
            .spec.replicas shouldBe 1
        run.out shouldContain "raised HorizontalPodAutoscaler web-hpa minReplicas 1 -> 4, maxReplicas 2 -> 4"
        run.code shouldBe ExitCode.TIMED_OUT.code
        run.out shouldContain "3 of 3 new pods were never created"
    }

    @Test
    fun `without an HPA the Deployment itself is scaled`() {
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web", replicas = 2)).create()

        val run = CliRun.of("prewarm", "deployment/web", "--replicas", "5", "-n", ns, "--timeout", "1s")

        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .get()
            .spec.replicas shouldBe 5
        run.out shouldContain "scaled deployment/web from 2 to 5 replicas"
    }

    @Test
    fun `a quota without room stops before anything is scaled`() {
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web", replicas = 1, cpu = "500m")).create()
        admin
            .resource(
                ResourceQuotaBuilder()
                    .withNewMetadata()
                    .withName("compute")
                    .withNamespace(ns)
                    .endMetadata()
                    .withNewSpec()
                    .addToHard("requests.cpu", Quantity("1"))
                    .endSpec()
                    .build(),
            ).create()

        val run = CliRun.of("prewarm", "deployment/web", "--replicas", "4", "-n", ns)

        run.code shouldBe ExitCode.NO_CAPACITY.code
        run.err shouldContain "ResourceQuota compute: requests.cpu 0 used + 3 x 0.5 > 1 hard"
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .get()
            .spec.replicas shouldBe 1
    }

    private infix fun <T> List<T>.shouldContainElement(element: T) = (element in this) shouldBe true
}
