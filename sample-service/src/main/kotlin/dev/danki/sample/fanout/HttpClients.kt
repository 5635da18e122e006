package dev.danki.sample.fanout

import io.ktor.client.HttpClient
import io.ktor.client.engine.cio.CIO
import io.ktor.client.plugins.HttpTimeout

/** The shared non-blocking client for /fanout and /relay. */
object HttpClients {
    /** The experiments run 200 calls at once to one host: CIO's default of 100 per route would queue half. */
    private const val MAX_CONNECTIONS = 2000
    private const val REQUEST_TIMEOUT_MS = 60_000L

    /** A CIO client sized for the experiments; close it on shutdown. */
    fun nonBlocking(): HttpClient =
        HttpClient(CIO) {
            engine {
                maxConnectionsCount = MAX_CONNECTIONS
                endpoint.maxConnectionsPerRoute = MAX_CONNECTIONS
            }
            install(HttpTimeout) { requestTimeoutMillis = REQUEST_TIMEOUT_MS }
            expectSuccess = true
        }
}
