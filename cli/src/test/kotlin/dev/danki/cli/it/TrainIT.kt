package dev.danki.cli.it

import dev.danki.cli.ExitCode
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheSpec
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.kotest.assertions.withClue
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.time.Instant

/**
 * `danki train deployment/<name>` against a real kube-apiserver. No operator runs here: a thread
 * plays its part, answering the request it sees on the Deployment with an AotCache status.
 */
class TrainIT {
    private val admin = CliApiServer.client()

    @BeforeEach
    fun crd() = CliApiServer.installCrds(listOf(AOT))

    @Test
    fun `train writes the request beside the other annotations and --wait prints the Ready cache`() {
        val ns = namespaceWith(web(aotCache = "enabled"))
        val operator = operatorAnswering(ns, AotCache.PHASE_READY)

        val run = CliRun.of("train", "deployment/web", "-n", ns, "--wait", "--timeout", "30s")
        operator.join()

        withClue(run) {
            run.code shouldBe ExitCode.OK.code
            run.out shouldContain "asked the danki operator to train the AOT cache of deployment/web"
            run.out shouldContain "READY: sha256 ${"ab".repeat(32)}, 66.4 MiB, 1200 training requests"
        }
        val deployment =
            admin
                .apps()
                .deployments()
                .inNamespace(ns)
                .withName("web")
                .get()
        deployment.metadata.annotations["team"] shouldBe "exams"
        deployment.metadata.managedFields.map { it.manager } shouldContain Keys.CLI_FIELD_MANAGER
    }

    @Test
    fun `a Failed training exits 1 with its reason`() {
        val ns = namespaceWith(web(aotCache = "enabled"))
        val operator = operatorAnswering(ns, AotCache.PHASE_FAILED)

        val run = CliRun.of("train", "deployment/web", "-n", ns, "--wait", "--timeout", "30s")
        operator.join()

        withClue(run) {
            run.code shouldBe ExitCode.NO_GO.code
            run.out shouldContain "FAILED: WarmupFailed: the warm-up of the training pod failed"
        }
    }

    @Test
    fun `a Deployment without the AOT annotation is refused, naming it`() {
        val ns = namespaceWith(web(aotCache = null))

        val run = CliRun.of("train", "deployment/web", "-n", ns)

        withClue(run) {
            run.code shouldBe ExitCode.NOT_OPTED_IN.code
            run.err shouldContain "it has no danki.dev/aot-cache annotation"
        }
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .get()
            .metadata.annotations
            .containsKey(Keys.Annotations.AOT_TRAIN) shouldBe false
    }

    @Test
    fun `without the AotCache CRD train says aotCache enabled is off`() {
        val ns = namespaceWith(web(aotCache = "enabled"))
        CliApiServer.uninstallCrds(listOf(AOT))

        val run = CliRun.of("train", "deployment/web", "-n", ns)

        withClue(run) {
            run.code shouldBe ExitCode.NO_CRD.code
            run.err shouldContain "aotCache.enabled"
        }
    }

    @Test
    fun `RBAC without get aotcaches is named before anything is written`() {
        val ns = namespaceWith(web(aotCache = "enabled"))
        Fixtures.grant(
            admin,
            ns,
            "trainer",
            Fixtures.rule("apps", "get", "deployments"),
            Fixtures.rule("apps", "patch", "deployments"),
        )

        val run = CliRun.of("train", "deployment/web", "-n", ns) { CliApiServer.client(impersonate = "trainer") }

        withClue(run) {
            run.code shouldBe ExitCode.FORBIDDEN.code
            run.err shouldContain "aotcaches"
        }
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .get()
            .metadata.annotations
            .containsKey(Keys.Annotations.AOT_TRAIN) shouldBe false
    }

    private fun web(aotCache: String?): (String) -> Deployment =
        { ns ->
            Fixtures.deployment(ns, "web").apply {
                metadata.annotations["team"] = "exams"
                aotCache?.let { metadata.annotations[Keys.Annotations.AOT_CACHE] = it }
            }
        }

    private fun namespaceWith(deployment: (String) -> Deployment): String {
        val ns = Fixtures.namespace(admin)
        admin.resource(deployment(ns)).create()
        return ns
    }

    /** Plays the operator: once the Deployment carries a training request, answers it with [phase]. */
    private fun operatorAnswering(ns: String, phase: String): Thread =
        Thread {
            val deadline = Instant.now() + Duration.ofSeconds(20)
            var request: String? = null
            while (request == null && Instant.now().isBefore(deadline)) {
                Thread.sleep(200)
                request =
                    admin
                        .apps()
                        .deployments()
                        .inNamespace(ns)
                        .withName("web")
                        .get()
                        .metadata.annotations[Keys.Annotations.AOT_TRAIN]
            }
            val cache =
                AotCache().apply {
                    metadata = ObjectMetaBuilder().withName("web").withNamespace(ns).build()
                    spec = AotCacheSpec().apply { deployment = "web" }
                }
            val created =
                admin
                    .resources(AotCache::class.java)
                    .inNamespace(ns)
                    .resource(cache)
                    .create()
            created.status = status(phase, request)
            admin
                .resources(AotCache::class.java)
                .inNamespace(ns)
                .resource(created)
                .updateStatus()
        }.apply { start() }

    private fun status(phase: String, request: String?) =
        AotCacheStatus().apply {
            this.phase = phase
            trainRequest = request
            if (phase == AotCache.PHASE_READY) {
                sha256 = "ab".repeat(32)
                sizeBytes = 69_599_232
                trainingRequests = 1200
                trainedAt = "2026-11-26T22:10:00Z"
            } else {
                reason = "WarmupFailed"
                message = "the warm-up of the training pod failed"
            }
        }

    private companion object {
        const val AOT = "aotcaches"
    }
}
