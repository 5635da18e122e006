package dev.danki.operator.warmup

import com.fasterxml.jackson.databind.ObjectMapper
import java.io.File
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.time.Instant
import java.util.concurrent.TimeUnit

/**
 * Starts `k6 run warmup.js` as a child process, one per attempt. The process gets a hard deadline
 * (and stops itself before it, so even an orphan ends), and [K6Process.cancel] kills it at once.
 */
class K6Runner(
    private val binary: String,
    private val script: String,
    private val workDir: Path,
) : AttemptStarter {
    private val json = ObjectMapper()

    /** Starts k6; an [java.io.IOException] means it could not start at all (e.g. the binary is missing). */
    override fun start(request: K6Request): K6Process {
        // resolved here, not by setpriv: a missing k6 is then an IOException naming it, not an exit code 127
        val k6 = Executables.find(binary)?.path ?: throw IOException("no executable file '$binary'")
        Files.createDirectories(workDir)
        val summary = workDir.resolve("${request.runName}.summary.json").toFile().apply { delete() }
        val log = workDir.resolve("${request.runName}.k6.log").toFile()
        val paths = workDir.resolve("${request.runName}.paths.json").toFile()
        // RequestSpec's properties are what warmup.js reads: method, path and body
        paths.writeText(json.writeValueAsString(request.plan.requests))
        val builder =
            ProcessBuilder(DEATH_SIGNAL + listOf(k6, "run") + K6_FLAGS + script)
                .redirectErrorStream(true)
                .redirectOutput(log)
        // k6 gets exactly what warmup.js reads and nothing of the operator's environment: no token
        // path, no API server address, no proxy settings (docs/security.md)
        builder.environment().clear()
        builder.environment().putAll(environment(request, summary) + ("PATHS_FILE" to paths.absolutePath))
        return K6Process(builder.start(), summary, log, request, inputs = listOf(paths))
    }

    /** The env vars `warmup.js` reads; see its header comment. */
    fun environment(request: K6Request, summary: File): Map<String, String> {
        val remaining = Duration.between(Instant.now(), request.deadline).coerceAtLeast(Duration.ofSeconds(1))
        val budget = remaining.minus(STOP_MARGIN).coerceAtLeast(Duration.ofSeconds(1))
        return K6Settings.of(request, budget) +
            mapOf(
                "ACCEPT_REDIRECTS" to if (request.plan.acceptRedirects) "1" else "0",
                "SUMMARY_PATH" to summary.absolutePath,
            )
    }

    companion object {
        /** k6 is told to finish this much before the hard deadline, so its summary gets written. */
        val STOP_MARGIN: Duration = Duration.ofSeconds(3)

        /**
         * util-linux `setpriv --pdeathsig KILL` then execs k6: the kernel kills k6 when the operator
         * dies, even by SIGKILL, so no k6 outlives its operator. Without setpriv, k6 still stops at its
         * own time budget.
         */
        private val DEATH_SIGNAL: List<String> = deathSignalPrefix(listOf("/usr/bin/setpriv", "/bin/setpriv"))

        /**
         * The first of [candidates] that runs `true` with `--pdeathsig KILL`, as a command prefix, or
         * none. busybox's setpriv (an Alpine or distroless-busybox base) has no such option: used
         * blindly, it would fail every warm-up with exit code 1.
         */
        internal fun deathSignalPrefix(candidates: List<String>): List<String> =
            candidates
                .filter { File(it).canExecute() }
                .map { listOf(it, "--pdeathsig", "KILL") }
                .firstOrNull { prefix ->
                    runCatching {
                        val probe = ProcessBuilder(prefix + "true").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        val process = probe.redirectErrorStream(true).start()
                        process.waitFor(PROBE_SECONDS, TimeUnit.SECONDS) && process.exitValue() == 0
                    }.getOrDefault(false)
                } ?: emptyList()

        private const val PROBE_SECONDS = 5L

        /**
         * `--address ""` turns off k6's REST API on localhost:6565, through which any local process
         * could pause or rescale a run (and which a second k6 could not bind anyway).
         */
        private val K6_FLAGS = listOf("--no-usage-report", "--quiet", "--no-color", "--address", "")
    }
}

/** The warm-up settings both of danki's k6 scripts read (k6-scripts/lib/settings.js), from a request. */
object K6Settings {
    private val json = ObjectMapper()
    private const val MILLIS = 1_000.0

    /** [timeBudget]: how long k6 may run, so that it ends (and reports) before the request's deadline. */
    fun of(request: K6Request, timeBudget: Duration): Map<String, String> {
        val plan = request.plan
        return mapOf(
            "BASE_URL" to request.baseUrl,
            "RATE" to plan.rate.toString(),
            "REQUESTS" to plan.passRequests.toString(),
            "COLD_PASS" to plan.coldPass.value,
            "DRAIN_S" to (plan.drain.toMillis() / MILLIS).toString(),
            "WARMUP_RATE" to plan.warmupRate.toString(),
            "WARMUP_CONCURRENCY" to plan.warmupConcurrency.toString(),
            "MIN_WARMUP_REQUESTS" to plan.minWarmupRequests.toString(),
            "MAX_WARMUP_REQUESTS" to plan.maxWarmupRequests.toString(),
            "JIT_METRICS_URL" to (request.jitMetricsUrl ?: ""),
            "TARGET_P95_MS" to (plan.targetP95?.toMillis()?.toString() ?: ""),
            "TIME_BUDGET_S" to (timeBudget.toMillis() / MILLIS).toString(),
            "MAX_ERROR_RATIO" to request.maxErrorRatio.toString(),
            "HEADERS" to json.writeValueAsString(plan.headers),
            "PHASES" to WarmupPhase.listOf(request.phases),
        )
    }
}

/** Finds programs as a shell would, so a missing one is reported by name instead of failing later. */
object Executables {
    /** [name] as the shell finds it: a path when it has a slash, else the first match on [path]. */
    fun find(name: String, path: String? = System.getenv("PATH")): File? {
        fun File.runnable() = isFile && canExecute()
        if (name.contains('/')) return File(name).takeIf { it.runnable() }
        return path
            .orEmpty()
            .split(File.pathSeparator)
            .filter { it.isNotEmpty() }
            .map { File(it, name) }
            .firstOrNull { it.runnable() }
    }
}
