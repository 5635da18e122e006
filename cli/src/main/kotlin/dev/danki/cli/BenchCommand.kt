package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupPlan
import java.net.URI
import java.nio.file.Files
import java.time.Duration
import java.time.Instant

/**
 * `danki bench <url>`: the operator's own k6 warm-up (k6-scripts/warmup.js, the same stop rule and
 * settings) against any URL, without Kubernetes, to tune a plan on a laptop before deploying it.
 */
class BenchCommand(
    console: Console,
) : DankiSubcommand("bench", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Run danki's warm-up (cold pass, warm-up to the stop rule, warm pass) against URL with k6 and print " +
            "the cold vs warm table. --paths takes the danki.dev/paths lines, e.g. 'GET /exams/1'."

    private val url by argument("URL", help = "base URL, e.g. http://127.0.0.1:8080")
    private val paths by option("--paths", help = "a request, METHOD /path [JSON body]; repeat for more").multiple()
    private val timeout by option("--timeout", help = "hard stop for the whole run, e.g. 5m")
        .convert { Arguments.duration(it) }
        .default(WarmupPlan.DEFAULT_TIMEOUT)
    private val targetP95 by option("--target-p95", help = "stop warming once a block's P95 is at or under this")
    private val maxWarmupRequests by option("--max-warmup-requests", help = "upper bound on warm-up requests")
    private val k6 by option("--k6", envvar = "DANKI_K6_BINARY", help = "k6 binary").default("k6")
    private val script by option("--script", envvar = "DANKI_K6_SCRIPT", help = "danki's k6-scripts/warmup.js")
        .default("k6-scripts/warmup.js")

    override fun execute(): ExitCode {
        val base = baseUrl(url)
        val plan = plan(base)
        val workDir = Files.createTempDirectory("danki-bench")
        val request =
            K6Request(
                runName = "bench",
                baseUrl = base.toString().trimEnd('/'),
                plan = plan,
                deadline = Instant.now() + timeout,
                maxErrorRatio = OperatorConfig.DEFAULT_MAX_ERROR_RATIO,
            )
        console.out.println(
            "warming $base with k6 (cold pass, warm-up to the stop rule, warm pass; " +
                "at most ${DurationFormat.format(timeout)})",
        )
        val process =
            try {
                K6Runner(k6, script, workDir).start(request)
            } catch (e: java.io.IOException) {
                throw CliFailure(ExitCode.USAGE, "cannot start k6: ${e.message}", "install k6, or pass --k6 PATH", e)
            }
        val interrupt = Thread { process.cancel() }
        Runtime.getRuntime().addShutdownHook(interrupt)
        val outcome = process.await()
        Runtime.getRuntime().removeShutdownHook(interrupt)
        process.cleanUp()
        workDir.toFile().deleteRecursively()
        val result = PodResult.of(base.toString(), outcome)
        console.out.print(ResultTable.render(listOf(result), null, ResultTable.Format.TABLE, waits = false))
        return if (result.warmed) ExitCode.OK else ExitCode.NO_GO
    }

    /** The plan the operator would make from the same annotations, so a bad --paths fails as it would there. */
    private fun plan(base: URI): WarmupPlan {
        val annotations =
            buildMap {
                put(Keys.Annotations.WARMUP, Keys.Annotations.ENABLED)
                put(Keys.Annotations.PORT, portOf(base).toString())
                if (paths.isNotEmpty()) put(Keys.Annotations.PATHS, paths.joinToString("\n"))
                targetP95?.let { put(Keys.Annotations.TARGET_P95, it) }
                maxWarmupRequests?.let { put(Keys.Annotations.MAX_WARMUP_REQUESTS, it) }
                put(Keys.Annotations.TIMEOUT, "${timeout.seconds}s")
            }
        val parsed = PlanParser(FailurePolicy.OPEN).parse(annotations, null)
        return parsed.plan ?: throw CliFailure(
            ExitCode.USAGE,
            "invalid warm-up settings: " +
                parsed.problems.joinToString("; ") { it.toString().removePrefix(Keys.PREFIX) },
            "fix the values; docs/annotations.md describes each",
        )
    }

    private fun baseUrl(text: String): URI {
        val uri = runCatching { URI(text.trim()) }.getOrNull()
        if (uri == null || uri.scheme !in setOf("http", "https") || uri.host.isNullOrEmpty()) {
            val problem = "'${text.take(MAX_ECHO)}' is not an http(s) URL"
            throw CliFailure(ExitCode.USAGE, problem, "pass e.g. http://127.0.0.1:8080")
        }
        return uri
    }

    private fun portOf(uri: URI): Int =
        if (uri.port > 0) {
            uri.port
        } else if (uri.scheme == "https") {
            HTTPS
        } else {
            HTTP
        }

    private companion object {
        const val MAX_ECHO = 80
        const val HTTP = 80
        const val HTTPS = 443
    }
}
