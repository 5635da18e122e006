package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import dev.danki.cluster.network.PodNetworkHandle
import dev.danki.cluster.volume.ConfigKind
import dev.danki.cluster.volume.PodVolumes
import dev.danki.cluster.volume.deleteTree
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.VolumeBuilder
import io.fabric8.kubernetes.api.model.VolumeMountBuilder
import java.nio.file.Files
import java.nio.file.Path
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class ContainerMountsTest {
    private val dir: Path = Files.createTempDirectory("container-mounts-test")
    private val serviceAccountDir: Path = Files.createDirectories(dir.resolve("serviceaccount"))

    @AfterTest
    fun cleanUp() = deleteTree(dir)

    private val volumes =
        listOf(
            VolumeBuilder()
                .withName("script")
                .withNewConfigMap()
                .withName("k6-script")
                .endConfigMap()
                .build(),
            VolumeBuilder()
                .withName("results")
                .withNewEmptyDir()
                .withMedium("Memory")
                .endEmptyDir()
                .build(),
            VolumeBuilder()
                .withName("cache")
                .withNewEmptyDir()
                .endEmptyDir()
                .build(),
        )

    private fun mount(volume: String, path: String, subPath: String? = null, readOnly: Boolean? = null) =
        VolumeMountBuilder()
            .withName(volume)
            .withMountPath(path)
            .withSubPath(subPath)
            .withReadOnly(readOnly)
            .build()

    @Test
    fun `volume mounts become bind mounts of the volume folders, parents first`() {
        val container =
            container(
                mount("cache", "/results/cache", readOnly = true),
                mount("results", "/results/"),
                mount("script", "/scripts"),
                mount("kube-api-access", ContainerCommand.SERVICE_ACCOUNT_PATH),
            )
        val mounts = ContainerMounts.of(context(container), container)
        val volumesDir = dir.resolve("volumes")
        assertEquals(
            listOf(
                BindMount(volumesDir.resolve("results"), "/results", readOnly = false),
                BindMount(volumesDir.resolve("script"), "/scripts", readOnly = true),
                BindMount(volumesDir.resolve("cache"), "/results/cache", readOnly = true),
                BindMount(dir.resolve("termination/k6"), "/dev/termination-log", readOnly = false),
                BindMount(serviceAccountDir, ContainerCommand.SERVICE_ACCOUNT_PATH, readOnly = true),
            ),
            mounts,
        )
        assertEquals("export default", Files.readString(volumesDir.resolve("script/run.js")))
    }

    @Test
    fun `a subPath mounts one file or folder of the volume and a missing one is made as a folder`() {
        val container =
            container(mount("script", "/app/run.js", subPath = "run.js"), mount("cache", "/c", subPath = "a/b"))
        val mounts = ContainerMounts.of(context(container), container)
        assertEquals(listOf("/c", "/app/run.js", "/dev/termination-log"), mounts.map { it.target })
        assertEquals(dir.resolve("volumes/cache/a/b"), mounts[0].source)
        assertEquals(true, Files.isDirectory(mounts[0].source))
        assertEquals("export default", Files.readString(mounts[1].source))
    }

    @Test
    fun `the termination-log file is mounted at the container's terminationMessagePath`() {
        val container = ContainerBuilder(container()).withTerminationMessagePath("/results/summary.json").build()
        val mounts = ContainerMounts.of(context(container), container)
        assertEquals(listOf(BindMount(dir.resolve("termination/k6"), "/results/summary.json", false)), mounts)
    }

    @Test
    fun `a subPath that leaves its volume is a config error`() {
        val container = container(mount("cache", "/c", subPath = "../../etc"))
        val error = assertFailsWith<ContainerConfigException> { ContainerMounts.of(context(container), container) }
        assertContains(error.message.orEmpty(), "must stay inside the volume")
    }

    @Test
    fun `an unsupported volume type names the volume`() {
        val hostPath =
            VolumeBuilder()
                .withName("host")
                .withNewHostPath()
                .withPath("/etc")
                .endHostPath()
                .build()
        val container = container(mount("host", "/host"))
        val context = context(container, volumes + hostPath)
        val error = assertFailsWith<RuntimeException> { ContainerMounts.of(context, container) }
        assertContains(error.message.orEmpty(), "volume \"host\": only configMap, secret and emptyDir")
    }

    private fun container(vararg mounts: io.fabric8.kubernetes.api.model.VolumeMount): Container =
        ContainerBuilder()
            .withName("k6")
            .withImage("danki/http-status:dev")
            .withVolumeMounts(*mounts)
            .build()

    private fun context(
        container: Container,
        podVolumes: List<io.fabric8.kubernetes.api.model.Volume> = volumes,
    ): PodContext {
        val pod: Pod =
            PodBuilder()
                .withNewMetadata()
                .withName("runner")
                .withNamespace("load")
                .withUid("u-1")
                .endMetadata()
                .withNewSpec()
                .withContainers(container)
                .withVolumes(podVolumes)
                .endSpec()
                .build()
        val objects = { kind: ConfigKind, _: String, name: String ->
            val script = mapOf("run.js" to "export default".toByteArray())
            if (kind == ConfigKind.CONFIG_MAP && name == "k6-script") script else null
        }
        return PodContext(
            pod = pod,
            config = AgentConfig(dir, "danki99-node", 99, "danki99", "198.18.99.1", CIDR, 6542, dir, dir, dir, dir),
            tools = HostTools("setsid", "ip", "sh"),
            network = PodNetworkHandle("danki99-00000000", "dk99v0", "198.18.99.2"),
            dir = dir,
            serviceAccountDir = serviceAccountDir,
            configValues = { _, _, _, _ -> null },
            events = NoEvents,
            volumes = PodVolumes(dir, objects),
        )
    }

    private companion object {
        const val CIDR = "198.18.99.0/24"
    }

    private object NoEvents : PodEventRecorder {
        override fun normal(pod: Pod, container: String?, reason: String, message: String) = Unit

        override fun warning(pod: Pod, container: String?, reason: String, message: String) = Unit
    }
}
