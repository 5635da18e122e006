package dev.danki.operator.boost

import io.kotest.matchers.shouldBe
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource

class JvmThreadsTest {
    @ParameterizedTest
    @CsvSource("100, 1", "1000, 1", "1001, 2", "2500, 3", "0, 1")
    fun `a JVM sees its CPU limit rounded up, at least one`(limitMillis: Long, processors: Int) {
        JvmThreads.activeProcessors(limitMillis) shouldBe processors
    }

    /** As `java -XX:ActiveProcessorCount=N -XX:+PrintFlagsFinal -version` prints CICompilerCount, JDK 17 and 25. */
    @ParameterizedTest
    @CsvSource("1, 2", "2, 2", "3, 2", "4, 3", "6, 3", "7, 3", "8, 4", "16, 12")
    fun `compiler threads follow HotSpot's rule`(processors: Int, threads: Int) {
        JvmThreads.compilerThreads(processors) shouldBe threads
    }

    @ParameterizedTest
    @CsvSource("150, 3000", "1000, 3000", "2000, 4000", "4000, 7000")
    fun `the sized boost is the JVM's CPUs and its compiler threads`(limitMillis: Long, boostMillis: Long) {
        JvmThreads.sizedBoostMillis(limitMillis) shouldBe boostMillis
    }
}
