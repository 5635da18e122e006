package dev.danki.cli

import dev.danki.operator.config.OperatorConfig
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.DurationFormat
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.K6Request
import dev.danki.operator.warmup.K6Runner
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.WarmupPlan
import java.io.IOException
import java.net.URI
import java.nio.file.Files
import java.time.Duration
import java.time.Instant

/**
 * The operator's own k6 warm-up (k6-scripts/warmup.js, the same plan parser, stop rule and settings)
 * run from this machine against [base]: what `danki bench` measures and `danki train --export` trains on.
 */
class LocalWarmup(
    private val options: WarmupOptions,
    private val console: Console,
) {
    /** Runs the warm-up to its end, at most [timeout]; Ctrl-C stops k6 too. */
    fun run(base: URI, timeout: Duration, runName: String): PodResult {
        val plan = plan(base, timeout)
        val workDir = Files.createTempDirectory("danki-$runName")
        val request =
            K6Request(
                runName = runName,
                baseUrl = base.toString().trimEnd('/'),
                plan = plan,
                deadline = Instant.now() + timeout,
                maxErrorRatio = OperatorConfig.DEFAULT_MAX_ERROR_RATIO,
            )
        console.out.println(
            "warming $base with k6 (warm-up to the stop rule, its first answers the cold figures, warm pass; " +
                "at most ${DurationFormat.format(timeout)})",
        )
        val process =
            try {
                K6Runner(options.k6, options.script, workDir).start(request)
            } catch (e: IOException) {
                workDir.toFile().deleteRecursively()
                throw CliFailure(ExitCode.USAGE, "cannot start k6: ${e.message}", "install k6, or pass --k6 PATH", e)
            }
        val interrupt = Thread { process.cancel() }
        Runtime.getRuntime().addShutdownHook(interrupt)
        val outcome = process.await()
        Runtime.getRuntime().removeShutdownHook(interrupt)
        process.cleanUp()
        workDir.toFile().deleteRecursively()
        return PodResult.of(base.toString(), outcome)
    }

    /** The plan the operator would make from the same annotations, so a bad --paths fails as it would there. */
    fun plan(base: URI, timeout: Duration): WarmupPlan {
        val annotations =
            buildMap {
                put(Keys.Annotations.WARMUP, Keys.Annotations.ENABLED)
                put(Keys.Annotations.PORT, BaseUrl.port(base).toString())
                if (options.paths.isNotEmpty()) put(Keys.Annotations.PATHS, options.paths.joinToString("\n"))
                options.targetP95?.let { put(Keys.Annotations.TARGET_P95, it) }
                options.maxWarmupRequests?.let { put(Keys.Annotations.MAX_WARMUP_REQUESTS, it) }
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
}
