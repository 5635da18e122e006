package dev.danki.cli

import com.github.ajalt.clikt.parameters.groups.OptionGroup
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option

/**
 * The plan and k6 options of a warm-up the CLI runs itself (`danki bench`, `danki train --export`),
 * declared once so both take the same flags with the same meaning.
 */
class WarmupOptions : OptionGroup(name = "Warm-up plan (as danki.dev/* annotations take it)") {
    val paths by option("--paths", help = "a request, METHOD /path [JSON body]; repeat for more").multiple()
    val targetP95 by option("--target-p95", help = "stop warming once a block's P95 is at or under this")
    val maxWarmupRequests by option("--max-warmup-requests", help = "upper bound on warm-up requests")
    val k6 by option("--k6", envvar = "DANKI_K6_BINARY", help = "k6 binary").default("k6")
    val script by option("--script", envvar = "DANKI_K6_SCRIPT", help = "danki's k6-scripts/warmup.js")
        .default("k6-scripts/warmup.js")
}
