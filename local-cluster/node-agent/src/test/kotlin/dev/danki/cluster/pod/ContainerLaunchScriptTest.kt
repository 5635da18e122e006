package dev.danki.cluster.pod

import dev.danki.cluster.volume.deleteTree
import org.junit.jupiter.api.Assumptions.assumeTrue
import java.nio.file.Files
import java.nio.file.Path
import java.util.UUID
import java.util.concurrent.TimeUnit
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse

/**
 * Runs container-launch.sh for real, in a private mount namespace made by `unshare` as `ip netns
 * exec` makes one. Needs root (as the node agent does); skipped otherwise.
 */
class ContainerLaunchScriptTest {
    private val dir: Path = Files.createTempDirectory("container-launch-test")
    private val unique = "danki-launch-test-" + UUID.randomUUID().toString().take(8)
    private val script = ContainerCommand::class.java.getResource("container-launch.sh")!!.readText()

    @AfterTest
    fun cleanUp() = deleteTree(dir)

    /** Runs [command] with [mounts], in [dir] as the working dir and the repository. */
    private fun launch(mounts: List<BindMount>, command: String): Pair<Int, String> {
        assumeTrue(
            ProcessHandle
                .current()
                .info()
                .user()
                .orElse("") == "root",
            "needs root for mounts",
        )
        val argv =
            listOf("unshare", "--mount", "--propagation", "slave", "sh", "-c", script, "launch") +
                listOf(dir.resolve("stage").toString(), dir.toString(), dir.toString()) +
                mounts.flatMap { listOf(it.source.toString(), it.target, if (it.readOnly) "ro" else "rw") } +
                listOf("--", "sh", "-c", command)
        val process = ProcessBuilder(argv).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) { "launch script did not finish" }
        return process.exitValue() to output.trim()
    }

    @Test
    fun `a file is mounted at a new path in dev without creating it on the host`() {
        val log = Files.createFile(dir.resolve("termination-log"))
        val target = "/dev/$unique"
        val command = "echo done > $target && cat /dev/null && pwd"
        val (exit, output) = launch(listOf(BindMount(log, target, false)), command)
        assertEquals(0 to dir.toString(), exit to output)
        assertEquals("done\n", Files.readString(log))
        assertFalse(Files.exists(Path.of(target)), "$target must not exist on the host")
    }

    @Test
    fun `a folder is mounted at a new top-level path, read-only, and the command runs in its working dir`() {
        val volume = Files.createDirectories(dir.resolve("volume"))
        Files.writeString(volume.resolve("script.js"), "export default")
        val target = "/$unique/config"
        val (exit, output) =
            launch(
                listOf(BindMount(volume, target, true)),
                "cat $target/script.js; echo; touch $target/new 2>/dev/null || echo read-only; pwd",
            )
        assertEquals(0 to "export default\nread-only\n$dir", exit to output)
        assertFalse(Files.exists(Path.of("/$unique")), "/$unique must not exist on the host")
    }

    @Test
    fun `a folder is mounted below run, where mount itself writes its own state`() {
        val volume = Files.createDirectories(dir.resolve("token"))
        Files.writeString(volume.resolve("token"), "abc")
        val target = "/var/run/$unique/serviceaccount"
        val (exit, output) = launch(listOf(BindMount(volume, target, true)), "cat $target/token")
        assertEquals(0 to "abc", exit to output)
        assertFalse(Files.exists(Path.of("/var/run/$unique")), "/var/run/$unique must not exist on the host")
    }

    @Test
    fun `a volume over a parent of the repository keeps the repository and later sources visible`() {
        // The chart's /tmp emptyDir over a clone under /tmp: before, the repository (the working dir
        // and the images' files) and the agent's own files below it vanished, and the launch failed.
        val parent = dir.parent.toString()
        val emptyDir = Files.createDirectories(dir.resolve("empty-dir"))
        val token = Files.createDirectories(dir.resolve("token"))
        Files.writeString(token.resolve("token"), "abc")
        Files.writeString(dir.resolve("image-file"), "from the repository")
        val tokenTarget = "/var/run/$unique/serviceaccount"
        val (exit, output) =
            launch(
                listOf(BindMount(emptyDir, parent, false), BindMount(token, tokenTarget, true)),
                "pwd; cat image-file; echo; cat $tokenTarget/token; echo; echo scratch > $parent/new; ls $parent",
            )
        assertEquals(0 to "$dir\nfrom the repository\nabc\n${dir.fileName}\nnew", exit to output)
        assertEquals("scratch\n", Files.readString(emptyDir.resolve("new")), "the volume holds what the command wrote")
        assertFalse(Files.exists(Path.of(parent, "new")), "the host's $parent is untouched")
    }

    @Test
    fun `a mount that cannot be made fails with the launch exit status`() {
        val missing = dir.resolve("not-there")
        val (exit, output) = launch(listOf(BindMount(missing, "/tmp/$unique", false)), "echo never")
        assertEquals(ContainerCommand.MOUNT_FAILED_EXIT, exit)
        assertFalse("never" in output)
    }

    private companion object {
        const val TIMEOUT_SECONDS = 20L
    }
}
