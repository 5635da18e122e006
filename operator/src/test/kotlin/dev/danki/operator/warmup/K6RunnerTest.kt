package dev.danki.operator.warmup

import java.nio.file.Files
import java.nio.file.Path
import kotlin.io.path.setPosixFilePermissions
import kotlin.test.Test
import kotlin.test.assertEquals
import java.nio.file.attribute.PosixFilePermissions.fromString as permissions

class K6RunnerTest {
    private val dir: Path = Files.createTempDirectory("k6-runner-test")

    /** A stand-in setpriv: exits 0 after running its command, or 1 like busybox's on --pdeathsig. */
    private fun setpriv(name: String, knowsPdeathsig: Boolean): String {
        val script =
            if (knowsPdeathsig) {
                "#!/bin/sh\nshift 2\nexec \"$@\"\n"
            } else {
                "#!/bin/sh\necho \"setpriv: unrecognized option '\$1'\" >&2\nexit 1\n"
            }
        val file = dir.resolve(name)
        Files.writeString(file, script)
        file.setPosixFilePermissions(permissions("rwx------"))
        return file.toString()
    }

    @Test
    fun `a setpriv without --pdeathsig is skipped for the next one`() {
        val busybox = setpriv("busybox-setpriv", knowsPdeathsig = false)
        val utilLinux = setpriv("util-linux-setpriv", knowsPdeathsig = true)
        assertEquals(listOf(utilLinux, "--pdeathsig", "KILL"), K6Runner.deathSignalPrefix(listOf(busybox, utilLinux)))
    }

    @Test
    fun `no usable setpriv means no prefix, so k6 still starts`() {
        val busybox = setpriv("busybox-setpriv", knowsPdeathsig = false)
        assertEquals(emptyList(), K6Runner.deathSignalPrefix(listOf(dir.resolve("missing").toString(), busybox)))
    }
}
