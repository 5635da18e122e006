package dev.danki.cli

import dev.danki.operator.aot.AotAnnotations
import dev.danki.operator.kube.AotCacheStatus
import dev.danki.operator.kube.Keys
import dev.danki.operator.warmup.DurationFormat
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.Locale

/**
 * `danki train deployment/<name>`: asks the operator for a new training of the Deployment's AOT
 * cache by writing the time to `danki.dev/aot-train`, and with [wait] follows it to its end.
 */
class ClusterTraining(
    private val reader: ClusterReader,
    private val console: Console,
) {
    private val caches = AotCaches(reader)

    fun run(ref: DeploymentRef, wait: Boolean, timeout: Duration): ExitCode {
        val deployment = reader.deployment(ref)
        requireCacheEnabled(ref, deployment.metadata.annotations.orEmpty())
        caches.requireServed()
        // read before writing: a user who may not read AotCaches learns it before anything changes
        val before = caches.get(ref)?.status
        // milliseconds, so two requests in the same second are still two values
        val value = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString()
        caches.requestTraining(ref, value)
        console.out.println(
            "asked the danki operator to train the AOT cache of $ref again (${Keys.Annotations.AOT_TRAIN}=$value)",
        )
        before?.sha256?.let { console.out.println("the current cache $it stays in use until the new one is ready") }
        if (!wait) {
            console.out.println("follow it: kubectl get aotcache/${ref.name} -n ${ref.namespace} -w")
            return ExitCode.OK
        }
        val interrupt = interruptNotice(ref)
        Runtime.getRuntime().addShutdownHook(interrupt)
        val progress = TrainingFollower(caches, console).follow(ref, value, timeout)
        Runtime.getRuntime().removeShutdownHook(interrupt)
        return judge(ref, progress, timeout)
    }

    private fun judge(ref: DeploymentRef, progress: TrainingProgress, timeout: Duration): ExitCode =
        when (progress) {
            is TrainingProgress.Ready -> {
                console.out.println("\nREADY: ${describe(progress.status)}")
                ExitCode.OK
            }

            is TrainingProgress.Ended -> {
                val status = progress.status
                console.out.println("\n${status.phase?.uppercase()}: ${status.reason}: ${status.message}")
                status.sha256?.let { console.out.println("the earlier cache $it is still given to new pods") }
                ExitCode.NO_GO
            }

            is TrainingProgress.Waiting -> {
                throw CliFailure(
                    ExitCode.TIMED_OUT,
                    "the training of $ref was not decided within ${DurationFormat.format(timeout)} " +
                        "(last: ${progress.what}); the request stays and the operator goes on",
                    "follow it: kubectl get aotcache/${ref.name} -n ${ref.namespace} -w; " +
                        "its Events: kubectl describe deployment/${ref.name} -n ${ref.namespace}",
                )
            }
        }

    /** The cache as a user checks it: digest, size, how much training it had, and when. */
    private fun describe(status: AotCacheStatus): String {
        val mib = (status.sizeBytes ?: 0L) / BYTES_PER_MIB
        return "sha256 ${status.sha256}, ${String.format(Locale.ROOT, "%.1f", mib)} MiB, " +
            "${status.trainingRequests ?: 0} training requests, trained at ${status.trainedAt}"
    }

    /** The training is the operator's: Ctrl-C only stops following it. */
    private fun interruptNotice(ref: DeploymentRef) =
        Thread {
            console.err.println("\ninterrupted: stopped following; the operator goes on training $ref")
            console.err.println("  follow it: kubectl get aotcache/${ref.name} -n ${ref.namespace} -w")
        }

    private fun requireCacheEnabled(ref: DeploymentRef, annotations: Map<String, String>) {
        if (AotAnnotations.of(annotations).enabled) return
        val key = Keys.Annotations.AOT_CACHE
        val value = annotations[key]
        val now = if (value == null) "it has no $key annotation" else "its $key is '${value.take(MAX_ECHO)}'"
        throw CliFailure(
            ExitCode.NOT_OPTED_IN,
            "$ref has no AOT cache to train: $now ($key: ${Keys.Annotations.ENABLED} turns it on)",
            "kubectl annotate deployment/${ref.name} -n ${ref.namespace} $key=${Keys.Annotations.ENABLED} " +
                "--overwrite; danki then trains a first cache by itself (docs/aot-cache.md)",
        )
    }

    private companion object {
        const val BYTES_PER_MIB = 1024.0 * 1024.0
        const val MAX_ECHO = 40
    }
}
