package dev.danki.operator.aot

import dev.danki.operator.aot.AotFixtures.FILE
import dev.danki.operator.aot.AotFixtures.RUNNER
import dev.danki.operator.aot.AotFixtures.SHA
import dev.danki.operator.aot.AotFixtures.app
import dev.danki.operator.aot.AotFixtures.cache
import dev.danki.operator.aot.AotFixtures.deployment
import dev.danki.operator.aot.AotFixtures.pod
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.Volume
import io.fabric8.kubernetes.api.model.VolumeBuilder
import io.fabric8.kubernetes.api.model.VolumeMount
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

class AotInjectionTest {
    private fun patch(
        pod: io.fabric8.kubernetes.api.model.Pod = pod(),
        deployment: io.fabric8.kubernetes.api.model.apps.Deployment = deployment(),
        cache: dev.danki.operator.kube.AotCache? = cache(),
        runner: String? = RUNNER,
    ) = AotInjection.patchFor(pod, deployment, cache, runner)

    private fun Map<String, Any>.path() = this["path"]

    @Suppress("UNCHECKED_CAST")
    private fun <T> Map<String, Any>.value() = this["value"] as T

    @Test
    fun `a bare pod of a Deployment with a ready cache gets every part, as whole lists`() {
        val result = patch()

        result.refusal.shouldBeNull()
        result.ops.map { it["op"] }.distinct() shouldBe listOf("add")
        result.ops.map { it.path() } shouldBe
            listOf(
                "/metadata/annotations",
                "/spec/volumes",
                "/spec/volumes/-",
                "/spec/initContainers",
                "/spec/containers/0/volumeMounts",
                "/spec/containers/0/env",
            )
        result.ops[0].value<Map<String, String>>() shouldBe mapOf(Keys.Aot.CACHE_ANNOTATION to SHA)
        val store = result.ops[1].value<List<Volume>>().single()
        store.name shouldBe Keys.Aot.STORE_VOLUME
        store.persistentVolumeClaim.claimName shouldBe "danki-aot-exam"
        store.persistentVolumeClaim.readOnly shouldBe true
        val copy = result.ops[2].value<Volume>()
        copy.name shouldBe Keys.Aot.COPY_VOLUME
        // 1e9 bytes are 953.7 MiB: 954 plus 64 of headroom
        copy.emptyDir.sizeLimit shouldBe Quantity("1018Mi")
        result.ops[3]
            .value<List<Container>>()
            .single()
            .name shouldBe Keys.Aot.VERIFY_CONTAINER
        result.ops[4].value<List<VolumeMount>>().single().let {
            it.name shouldBe Keys.Aot.COPY_VOLUME
            it.mountPath shouldBe Keys.Aot.COPY_DIR
            it.readOnly shouldBe true
        }
        result.ops[5].value<List<EnvVar>>() shouldBe
            listOf(EnvVar("JDK_JAVA_OPTIONS", "-XX:AOTCache=/var/run/danki/aot/app.aot", null))
    }

    @Test
    fun `the verify container runs the runner image locked down, with the digest and the claim's path`() {
        val verify = patch().ops[3].value<List<Container>>().single()

        verify.image shouldBe RUNNER
        verify.command.take(2) shouldBe listOf("sh", "-c")
        verify.command[2] shouldBe AotInjection.VERIFY_SCRIPT
        verify.env shouldBe listOf(EnvVar("DANKI_AOT_SHA256", SHA, null), EnvVar("DANKI_AOT_FILE", FILE, null))
        verify.volumeMounts.map { Triple(it.name, it.mountPath, it.readOnly) } shouldBe
            listOf(
                Triple(Keys.Aot.STORE_VOLUME, Keys.Aot.STORE_DIR, true),
                Triple(Keys.Aot.COPY_VOLUME, Keys.Aot.COPY_DIR, null),
            )
        verify.terminationMessagePolicy shouldBe "File"
        verify.resources.requests shouldBe mapOf("cpu" to Quantity("50m"), "memory" to Quantity("32Mi"))
        verify.resources.limits shouldBe mapOf("memory" to Quantity("64Mi"))
        with(verify.securityContext) {
            runAsNonRoot shouldBe true
            runAsUser shouldBe 65532L
            readOnlyRootFilesystem shouldBe true
            allowPrivilegeEscalation shouldBe false
            capabilities.drop shouldBe listOf("ALL")
            seccompProfile.type shouldBe "RuntimeDefault"
        }
    }

    @Test
    fun `existing annotations, volumes, init containers, mounts and options are kept and added to`() {
        val jvm =
            app()
                .addNewVolumeMount()
                .withName("tmp")
                .withMountPath("/tmp")
                .endVolumeMount()
                .addNewEnv()
                .withName("JAVA_TOOL_OPTIONS")
                .withValue("-Xmx1g")
                .endEnv()
                .build()
        val pod =
            PodBuilder(pod(jvm))
                .editMetadata()
                .addToAnnotations("example.com/team", "shop")
                .endMetadata()
                .editSpec()
                .addToVolumes(
                    VolumeBuilder()
                        .withName("tmp")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .build(),
                ).addToInitContainers(ContainerBuilder().withName("migrate").withImage("exam-migrate:1").build())
                .endSpec()
                .build()

        val ops = patch(pod, cache = cache(trainedOn = jvm)).ops

        ops.map { it.path() } shouldBe
            listOf(
                "/metadata/annotations/danki.dev~1aot-cache",
                "/spec/volumes/-",
                "/spec/volumes/-",
                "/spec/initContainers/-",
                "/spec/containers/0/volumeMounts/-",
                "/spec/containers/0/env",
            )
        ops[0].value<String>() shouldBe SHA
        ops[1].value<Volume>().name shouldBe Keys.Aot.STORE_VOLUME
        ops[3].value<Container>().name shouldBe Keys.Aot.VERIFY_CONTAINER
        ops[5].value<List<EnvVar>>() shouldBe
            listOf(EnvVar("JAVA_TOOL_OPTIONS", "-Xmx1g -XX:AOTCache=/var/run/danki/aot/app.aot", null))
    }

    @Test
    fun `the JVM container is the one serving the warm-up port, wherever it is in the list`() {
        val sidecar =
            ContainerBuilder()
                .withName(
                    "proxy",
                ).withImage("envoy:1")
                .addNewPort()
                .withContainerPort(9901)
                .endPort()
        val ops = patch(pod(sidecar.build(), app().build()), deployment(port = "8080")).ops

        ops.map { it.path() }.takeLast(2) shouldBe listOf("/spec/containers/1/volumeMounts", "/spec/containers/1/env")
    }

    @Test
    fun `another image, command or arguments than the cache was trained on get no cache`() {
        patch(pod(app(image = "exam:2").build())).ops.shouldBeEmpty()
        patch(pod(app().withArgs("--other").build())).ops.shouldBeEmpty()
        patch(pod(app().withCommand("java", "-jar", "x.jar").build())).ops.shouldBeEmpty()
    }

    @Test
    fun `with other JVM options than at training the cache is given, for the JVM to judge`() {
        val jvm =
            app()
                .addNewEnv()
                .withName("JDK_JAVA_OPTIONS")
                .withValue("-XX:+UseZGC")
                .endEnv()
                .build()

        val result = patch(pod(jvm), cache = cache(trainedOn = app().build()))

        result.ops.size shouldBe 6
        result.ops.last().value<List<EnvVar>>() shouldBe
            listOf(EnvVar("JDK_JAVA_OPTIONS", "-XX:+UseZGC -XX:AOTCache=/var/run/danki/aot/app.aot", null))
    }

    @Test
    fun `a container whose options cannot be added to gets nothing, and the refusal says why`() {
        val jvm =
            app()
                .addNewEnvFrom()
                .withNewConfigMapRef("exam-env", false)
                .endEnvFrom()
                .build()

        val result = patch(pod(jvm), cache = cache(trainedOn = jvm))

        result.ops.shouldBeEmpty()
        result.refusal!! shouldContain "envFrom"
    }

    @Test
    fun `nothing without the opt-in, the runner image or a complete cache`() {
        for (result in listOf(
            patch(deployment = deployment(aot = null)),
            patch(deployment = deployment(aot = "Enabled")),
            patch(cache = null),
            patch(cache = cache(sha256 = null)),
            patch(cache = cache(file = null)),
            patch(cache = cache(claimName = null)),
            patch(runner = null),
            patch(runner = ""),
        )) {
            result.ops.shouldBeEmpty()
            result.refusal.shouldBeNull()
        }
    }

    @Test
    fun `a digest or a path that is not the training's own is not injected`() {
        val badDigests = listOf(SHA.uppercase(), SHA.drop(1), "$SHA\"; rm -rf /", "")
        val badFiles =
            listOf("../../etc/passwd", "/cache/$SHA.aot", "cache/x.aot", "cache/$SHA.aot\nx", "cache/$SHA.aot.tmp")
        for (sha in badDigests) patch(cache = cache(sha256 = sha)).ops.shouldBeEmpty()
        for (file in badFiles) patch(cache = cache(file = file)).ops.shouldBeEmpty()
    }

    @Test
    fun `a pod that already carries danki's names is left alone, as adding them would make it invalid`() {
        val annotated =
            PodBuilder(
                pod(),
            ).editMetadata().addToAnnotations(Keys.Aot.CACHE_ANNOTATION, SHA).endMetadata().build()
        val withVolume =
            PodBuilder(
                pod(),
            ).editSpec()
                .addNewVolume()
                .withName(
                    Keys.Aot.COPY_VOLUME,
                ).withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .build()
        val mountedThere =
            pod(
                app()
                    .addNewVolumeMount()
                    .withName("x")
                    .withMountPath(Keys.Aot.COPY_DIR + "/")
                    .endVolumeMount()
                    .build(),
            )

        patch(annotated).ops.shouldBeEmpty()
        patch(withVolume).ops.shouldBeEmpty()
        patch(mountedThere, cache = cache(trainedOn = mountedThere.spec.containers[0])).ops.shouldBeEmpty()
    }

    @Test
    fun `the copy's limit is the cache rounded up to MiB plus headroom, or 1Gi when its size is unknown`() {
        AotInjection.sizeLimit(null) shouldBe "1Gi"
        AotInjection.sizeLimit(0) shouldBe "1Gi"
        AotInjection.sizeLimit(1) shouldBe "65Mi"
        AotInjection.sizeLimit(1024L * 1024) shouldBe "65Mi"
        AotInjection.sizeLimit(1024L * 1024 + 1) shouldBe "66Mi"
    }
}
