package dev.danki.operator.warmup

/** One request a warm-up sends over and over: `METHOD /path [JSON body]`. */
data class RequestSpec(
    val method: String,
    val path: String,
    val body: String? = null,
)
