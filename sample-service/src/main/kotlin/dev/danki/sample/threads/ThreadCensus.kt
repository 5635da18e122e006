package dev.danki.sample.threads

import com.sun.management.HotSpotDiagnosticMXBean
import kotlinx.serialization.Serializable
import java.lang.management.ManagementFactory

/** Live threads grouped by pool, and the stack address space they reserve. */
@Serializable
data class ThreadSnapshot(
    val liveThreads: Int,
    val peakThreads: Int,
    val daemonThreads: Int,
    /** `-Xss` (ThreadStackSize) in bytes: what each new thread reserves for its stack. */
    val stackSizeBytes: Long,
    /** [liveThreads] times [stackSizeBytes]: reserved (virtual), not all of it resident. */
    val reservedStackBytes: Long,
    val threadsByPool: Map<String, Int>,
)

/** Counts the JVM's threads; a pool is a thread name with its trailing numbers removed. */
class ThreadCensus {
    private val threads = ManagementFactory.getThreadMXBean()
    private val stackSizeBytes: Long = readStackSize()

    /** A snapshot of every live thread now. */
    fun take(): ThreadSnapshot {
        // thread infos without stack frames: cheap enough to take on every /threads and /metrics call
        val byPool =
            threads
                .getThreadInfo(threads.allThreadIds, 0)
                .filterNotNull()
                .groupingBy { poolOf(it.threadName) }
                .eachCount()
                .toSortedMap()
        val live = threads.threadCount
        return ThreadSnapshot(
            liveThreads = live,
            peakThreads = threads.peakThreadCount,
            daemonThreads = threads.daemonThreadCount,
            stackSizeBytes = stackSizeBytes,
            reservedStackBytes = live * stackSizeBytes,
            threadsByPool = byPool,
        )
    }

    /** Starts a new peak measurement; the next [peakSinceReset] reports the highest count from now on. */
    fun resetPeak() = threads.resetPeakThreadCount()

    /** Highest live thread count since [resetPeak]. */
    fun peakSinceReset(): Int = threads.peakThreadCount

    /** Threads of one pool differ only in their numbers: `DefaultDispatcher-worker-12`, `eventLoopGroupProxy-4-2`. */
    fun poolOf(threadName: String): String = threadName.replace(TRAILING_NUMBERS, "").ifEmpty { threadName }

    private companion object {
        val TRAILING_NUMBERS = Regex("([-# ]?\\d+)+$")
        const val BYTES_PER_KB = 1024L

        /** HotSpot's default on 64-bit Linux when the option cannot be read. */
        const val DEFAULT_STACK_KB = 1024L

        fun readStackSize(): Long {
            val kb =
                runCatching {
                    ManagementFactory
                        .getPlatformMXBean(HotSpotDiagnosticMXBean::class.java)
                        .getVMOption("ThreadStackSize")
                        .value
                        .toLong()
                }.getOrDefault(DEFAULT_STACK_KB)
            return kb * BYTES_PER_KB
        }
    }
}
