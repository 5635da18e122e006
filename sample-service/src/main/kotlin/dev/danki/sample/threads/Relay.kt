package dev.danki.sample.threads

import io.ktor.client.HttpClient
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.withContext
import java.net.URI
import java.util.concurrent.SynchronousQueue
import java.util.concurrent.ThreadFactory
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** How `/relay` waits for its downstream. */
enum class RelayMode(
    val label: String,
) {
    /** A new (or idle) thread per request, blocked on the socket: the classic servlet model. */
    THREAD_PER_REQUEST("thread-per-request"),

    /** A suspending client call: the request holds no thread while it waits. */
    EVENT_LOOP("event-loop"),
    ;

    companion object {
        /** The mode named [label], or null. */
        fun of(label: String): RelayMode? = entries.firstOrNull { it.label == label }
    }
}

/** Forwards a request to this service's own `/slow`, in either threading model (experiment 4). */
class Relay(
    private val client: HttpClient,
    private val selfBaseUrl: String,
) : AutoCloseable {
    private val executor =
        ThreadPoolExecutor(
            0,
            MAX_THREADS,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            SynchronousQueue(),
            NamedThreads("per-request"),
        )
    private val perRequest = executor.asCoroutineDispatcher()

    /** Waits for `/slow?ms=[ms]` and returns its body. */
    suspend fun forward(mode: RelayMode, ms: Long): String {
        val url = "$selfBaseUrl/slow?ms=$ms"
        return when (mode) {
            RelayMode.THREAD_PER_REQUEST -> withContext(perRequest) { URI(url).toURL().readText() }
            RelayMode.EVENT_LOOP -> client.get(url).bodyAsText()
        }
    }

    override fun close() = executor.shutdownNow().let { }

    private class NamedThreads(
        private val prefix: String,
    ) : ThreadFactory {
        private val count = AtomicInteger()

        override fun newThread(task: Runnable): Thread {
            val thread = Thread(task, "$prefix-${count.incrementAndGet()}")
            thread.isDaemon = true
            return thread
        }
    }

    private companion object {
        /** A bound, so a runaway load test fails requests instead of exhausting the machine. */
        const val MAX_THREADS = 2000

        /** Idle threads go soon, so a later measurement does not count this one's threads. */
        const val IDLE_SECONDS = 2L
    }
}
