package dev.danki.cli

import java.net.URI

/** The base URL a warm-up run by the CLI sends its requests to. */
object BaseUrl {
    /** [text] as an http(s) URL with a host, or a usage failure. */
    fun parse(text: String): URI {
        val uri = runCatching { URI(text.trim()) }.getOrNull()
        if (uri == null || uri.scheme !in setOf("http", "https") || uri.host.isNullOrEmpty()) {
            val problem = "'${text.take(MAX_ECHO)}' is not an http(s) URL"
            throw CliFailure(ExitCode.USAGE, problem, "pass e.g. http://127.0.0.1:8080")
        }
        return uri
    }

    fun port(uri: URI): Int =
        if (uri.port > 0) {
            uri.port
        } else if (uri.scheme == "https") {
            HTTPS
        } else {
            HTTP
        }

    /**
     * Whether [uri] names this machine: `localhost`, an address in 127.0.0.0/8, or `[::1]`. Decided
     * from the text alone, never by a DNS look-up, which could answer anything.
     */
    fun isLoopback(uri: URI): Boolean {
        val host = uri.host?.lowercase()?.removeSurrounding("[", "]") ?: return false
        return host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" || IPV4_LOOPBACK.matches(host)
    }

    /** 127.x.y.z with each part a decimal 0-255. */
    private val IPV4_LOOPBACK = Regex("127(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}")
    private const val MAX_ECHO = 80
    private const val HTTP = 80
    private const val HTTPS = 443
}
