package dev.danki.operator.boost

/**
 * How a HotSpot JVM sizes itself from the CPUs it sees at start: the figures the CPU boost is chosen by.
 * A JVM sizes its garbage collector and its JIT compiler threads once, from its CPU limit rounded up,
 * and keeps them when the limit falls. Pure.
 */
object JvmThreads {
    private const val MILLIS_PER_CPU = 1000L

    /** The CPUs a JVM sees under a CPU limit of [limitMillis]: the limit rounded up, at least 1. */
    fun activeProcessors(limitMillis: Long): Int =
        maxOf(1L, (limitMillis + MILLIS_PER_CPU - 1) / MILLIS_PER_CPU).toInt()

    /**
     * The JIT compiler threads of a JVM that sees [processors] CPUs: HotSpot's CICompilerCountPerCPU rule
     * (`log2(n) * log2(log2(n)) * 3 / 2`, at least 2), which `-XX:+PrintFlagsFinal` shows on JDK 17 and 25
     * alike: 2 up to 3 CPUs, 3 up to 7, 4 at 8, 12 at 16.
     */
    fun compilerThreads(processors: Int): Int {
        val log = log2(processors)
        val logLog = log2(maxOf(log, 1))
        return maxOf(log * logLog * THREE_HALVES_NUMERATOR / 2, 2)
    }

    /**
     * The default boost of a container whose own CPU limit is [limitMillis]: what its JVM, sized for that
     * limit, can run at once while it starts and warms: its application threads' CPUs and all its compiler
     * threads. Less leaves the JIT's queue waiting for CPU; more, no thread of that JVM can use.
     */
    fun sizedBoostMillis(limitMillis: Long): Long {
        val processors = activeProcessors(limitMillis)
        return (processors + compilerThreads(processors)) * MILLIS_PER_CPU
    }

    private fun log2(n: Int): Int = Integer.SIZE - 1 - Integer.numberOfLeadingZeros(maxOf(n, 1))

    /** HotSpot's factor of 3/2 in CICompilerCountPerCPU's rule, kept in integers as HotSpot computes it. */
    private const val THREE_HALVES_NUMERATOR = 3
}
