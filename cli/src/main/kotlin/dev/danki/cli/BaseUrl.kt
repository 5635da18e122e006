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

    private const val MAX_ECHO = 80
    private const val HTTP = 80
    private const val HTTPS = 443
}
