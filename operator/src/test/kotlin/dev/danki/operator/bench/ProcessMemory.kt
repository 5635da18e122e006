package dev.danki.operator.bench

import java.io.File
import java.util.concurrent.TimeUnit

/** What a benchmark reads of a JVM process's memory: resident memory, and the live heap after a full GC. */
object ProcessMemory {
    private const val KIB_PER_MIB = 1024.0
    private const val JCMD_SECONDS = 60L

    /** Resident set size now, from /proc: what the container's memory limit counts (with page cache aside). */
    fun rssMib(pid: Long): Double {
        val line = File("/proc/$pid/status").readLines().first { it.startsWith("VmRSS:") }
        return line.split(Regex("\\s+"))[1].toDouble() / KIB_PER_MIB
    }

    /** The heap in use right after a full GC (`jcmd GC.run`, then `GC.heap_info`): the live set. */
    fun liveHeapMib(pid: Long): Double {
        jcmd(pid, "GC.run")
        val info = jcmd(pid, "GC.heap_info")
        // "garbage-first heap   total 62464K, used 27108K [...]"
        val used = Regex("heap\\s+total \\d+K, used (\\d+)K").find(info) ?: error("no heap figure in: $info")
        return used.groupValues[1].toDouble() / KIB_PER_MIB
    }

    private fun jcmd(pid: Long, command: String): String {
        val jcmd = ProcessBuilder("jcmd", pid.toString(), command).redirectErrorStream(true).start()
        val out = jcmd.inputStream.bufferedReader().readText()
        check(jcmd.waitFor(JCMD_SECONDS, TimeUnit.SECONDS) && jcmd.exitValue() == 0) { "jcmd $command: $out" }
        return out
    }
}
