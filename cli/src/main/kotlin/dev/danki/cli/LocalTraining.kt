package dev.danki.cli

import dev.danki.operator.warmup.DurationFormat
import java.io.File
import java.io.IOException
import java.net.URI
import java.nio.file.Files
import java.security.MessageDigest
import java.time.Duration
import java.util.HexFormat
import java.util.Locale

/**
 * `danki train --export FILE -- COMMAND`: trains an AOT cache on this machine, for an image that bakes
 * it in at build time. Starts COMMAND recording to FILE, warms it over loopback with danki's plan,
 * stops it cleanly so its JVM writes the cache, and checks the file is there.
 */
class LocalTraining(
    private val warmup: WarmupOptions,
    private val console: Console,
) {
    /** The bounds of each stage: the warm-up itself ([warmup]), the first answer ([start]), the clean stop ([stop]). */
    data class Timeouts(
        val warmup: Duration,
        val start: Duration,
        val stop: Duration,
    )

    fun run(command: List<String>, export: File, base: URI, timeouts: Timeouts): ExitCode {
        val cache = export.absoluteFile
        // a bad plan fails here, before a JVM is started for nothing
        LocalWarmup(warmup, console).plan(base, timeouts.warmup)
        prepare(cache)
        val log = Files.createTempFile("danki-train-", ".log").toFile()
        val app =
            try {
                TrainedApp.start(command, cache, log)
            } catch (e: IOException) {
                log.delete()
                throw CliFailure(ExitCode.USAGE, "cannot start ${command.first()}: ${e.message}", "check COMMAND", e)
            }
        console.out.println("started ${command.joinToString(" ")} (recording to $cache; output in $log)")
        val interrupt =
            Thread {
                // Ctrl-C reaches COMMAND too, whose JVM may then start a cache it will not finish
                app.kill()
                cache.delete()
                console.err.println("\ninterrupted: stopped COMMAND; nothing exported")
            }
        Runtime.getRuntime().addShutdownHook(interrupt)
        try {
            return train(app, cache, base, timeouts).also { if (it == ExitCode.OK) log.delete() }
        } finally {
            app.kill()
            Runtime.getRuntime().removeShutdownHook(interrupt)
        }
    }

    private fun train(app: TrainedApp, cache: File, base: URI, timeouts: Timeouts): ExitCode {
        awaitStart(app, base, timeouts.start)
        val result = LocalWarmup(warmup, console).run(base, timeouts.warmup, "train")
        console.out.print(ResultTable.render(listOf(result), null, ResultTable.Format.TABLE, waits = false))
        console.out.println("stopping COMMAND (SIGTERM); its JVM writes the cache as it exits")
        val stopped = app.stop(timeouts.stop)
        val refusal = refusal(result, stopped, timeouts.stop)
        if (refusal != null) {
            cache.delete()
            throw refusal
        }
        return exported(app, cache)
    }

    private fun awaitStart(app: TrainedApp, base: URI, timeout: Duration) {
        when (app.awaitAnswer(base, timeout)) {
            TrainedApp.Start.ANSWERED -> {
                return
            }

            TrainedApp.Start.EXITED -> {
                throw CliFailure(
                    ExitCode.NO_GO,
                    "COMMAND exited with code ${app.exitCode} before $base answered; its last lines:\n" +
                        app.lastLines(),
                    "fix COMMAND (its output: ${app.log}); 'Unrecognized VM option' means its JVM is older " +
                        "than JDK 25, which has no -XX:AOTCacheOutput",
                )
            }

            TrainedApp.Start.TIMED_OUT -> {
                throw CliFailure(
                    ExitCode.TIMED_OUT,
                    "$base did not answer within ${DurationFormat.format(timeout)} of starting COMMAND",
                    "check that COMMAND listens there (its output: ${app.log}), or raise --start-timeout",
                )
            }
        }
    }

    /** Why the file COMMAND left must not be exported, or null when it may. */
    private fun refusal(result: PodResult, stopped: Boolean, stop: Duration): CliFailure? =
        when {
            // a cache trained on failing requests is not one to bake into an image
            !result.warmed -> {
                CliFailure(
                    ExitCode.NO_GO,
                    "the warm-up failed (${result.reason}), so no cache was exported",
                    "fix the plan or the service, check it with danki bench, then train again",
                )
            }

            // killed while writing: the file may be cut short
            !stopped -> {
                CliFailure(
                    ExitCode.TIMED_OUT,
                    "COMMAND did not exit within ${DurationFormat.format(stop)} of SIGTERM, so it was killed " +
                        "and no cache was exported",
                    "raise --stop-timeout; run java directly or exec it from a script, so SIGTERM reaches the JVM",
                )
            }

            else -> {
                null
            }
        }

    private fun exported(app: TrainedApp, cache: File): ExitCode {
        if (!cache.isFile || cache.length() == 0L) {
            throw CliFailure(
                ExitCode.NO_GO,
                "COMMAND exited with code ${app.exitCode} and wrote no cache to $cache; its last lines:\n" +
                    app.lastLines(),
                "COMMAND must run a JDK 25+ java that reads JDK_JAVA_OPTIONS (the java launcher does); " +
                    "its output: ${app.log}",
            )
        }
        val mib = cache.length() / BYTES_PER_MIB
        console.out.println("\nexported $cache")
        console.out.println("  sha256 ${sha256(cache)}, ${String.format(Locale.ROOT, "%.1f", mib)} MiB")
        console.out.println("  in the image, with the same JDK and the same jar:")
        console.out.println("    COPY ${cache.name} /app/${cache.name}")
        console.out.println("    ENV JDK_JAVA_OPTIONS=-XX:AOTCache=/app/${cache.name}")
        return ExitCode.OK
    }

    /** FILE's folder must exist; an old FILE goes first, so the check at the end sees only this run's cache. */
    private fun prepare(cache: File) {
        if (cache.parentFile?.isDirectory != true) {
            throw CliFailure(ExitCode.USAGE, "no folder ${cache.parentFile} for --export $cache", "create it first")
        }
        if (cache.exists() && !cache.delete()) {
            throw CliFailure(
                ExitCode.USAGE,
                "cannot replace $cache",
                "check its permissions, or pick another --export FILE",
            )
        }
    }

    private fun sha256(file: File): String {
        val digest = MessageDigest.getInstance("SHA-256")
        file.inputStream().use { input ->
            val buffer = ByteArray(BUFFER)
            while (true) {
                val read = input.read(buffer)
                if (read < 0) break
                digest.update(buffer, 0, read)
            }
        }
        return HexFormat.of().formatHex(digest.digest())
    }

    private companion object {
        const val BYTES_PER_MIB = 1024.0 * 1024.0
        const val BUFFER = 1 shl 16
    }
}
