package dev.danki.sample.fanout

import dev.danki.sample.threads.ThreadCensus
import io.ktor.client.HttpClient
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.withContext
import kotlinx.serialization.Serializable
import org.slf4j.LoggerFactory
import java.net.URI

/** How `/fanout` calls its downstream. */
enum class FanOutMode {
    /** `URL.openStream()` on Dispatchers.IO: one parked thread per call in flight, at most 64. */
    BLOCKING,

    /** Ktor's CIO client: calls in flight hold no thread. */
    NONBLOCKING,
}

/** What one `/fanout` call measured. */
@Serializable
data class FanOutReport(
    val mode: String,
    val n: Int,
    val downstream: String,
    val elapsedMs: Long,
    val ok: Int,
    val failed: Int,
    val threadsBefore: Int,
    /** Highest live thread count while the calls ran (JVM-wide). */
    val peakThreads: Int,
)

/** Calls a downstream [n] times at once, blocking or not, and reports time and thread peak. */
class FanOut(
    private val client: HttpClient,
    private val threadCensus: ThreadCensus,
) {
    /** Runs the fan-out; concurrent /fanout calls share the JVM-wide peak, so run one at a time. */
    suspend fun run(n: Int, mode: FanOutMode, downstream: URI): FanOutReport {
        val before = threadCensus.take().liveThreads
        threadCensus.resetPeak()
        val started = System.nanoTime()
        val results =
            coroutineScope {
                List(n) {
                    async { succeeded { call(mode, downstream) } }
                }.awaitAll()
            }
        val elapsedMs = (System.nanoTime() - started) / NANOS_PER_MS
        val ok = results.count { it }
        return FanOutReport(
            mode = mode.name.lowercase(),
            n = n,
            downstream = downstream.toString(),
            elapsedMs = elapsedMs,
            ok = ok,
            failed = n - ok,
            threadsBefore = before,
            peakThreads = threadCensus.peakSinceReset(),
        )
    }

    private suspend fun call(mode: FanOutMode, downstream: URI) {
        when (mode) {
            FanOutMode.BLOCKING -> {
                withContext(Dispatchers.IO) {
                    val connection = downstream.toURL().openConnection()
                    connection.connectTimeout = TIMEOUT_MS
                    connection.readTimeout = TIMEOUT_MS
                    connection.getInputStream().use { it.readAllBytes() }
                }
            }

            FanOutMode.NONBLOCKING -> {
                client.get(downstream.toString()).bodyAsText()
            }
        }
    }

    /**
     * One downstream call is the boundary of its own small job: whatever made it fail (refused,
     * timed out, a non-2xx answer, a client error) is counted in the report, not thrown. Cancellation
     * (the caller went away) still propagates.
     */
    @Suppress("TooGenericExceptionCaught")
    private suspend fun succeeded(call: suspend () -> Unit): Boolean =
        try {
            call()
            true
        } catch (e: CancellationException) {
            throw e
        } catch (e: Exception) {
            log.atDebug().setCause(e).log("downstream call failed")
            false
        }

    private companion object {
        val log = LoggerFactory.getLogger(FanOut::class.java)

        const val NANOS_PER_MS = 1_000_000L

        /** Longer than any /slow the experiments ask for. */
        const val TIMEOUT_MS = 60_000
    }
}
