package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.arguments.multiple
import com.github.ajalt.clikt.parameters.groups.provideDelegate
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.flag
import com.github.ajalt.clikt.parameters.options.option
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.client.KubernetesClient
import java.io.File
import java.time.Duration

/**
 * `danki train`: a new JDK AOT cache, either by the operator for a Deployment in the cluster
 * ([ClusterTraining]) or on this machine for an image that bakes it in ([LocalTraining], `--export`).
 */
class TrainCommand(
    console: Console,
    private val clients: () -> KubernetesClient,
) : DankiSubcommand("train", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Train a JDK AOT cache. `train deployment/<name> [--wait]` asks the danki operator to train the " +
            "Deployment's cache again. `train --export FILE -- COMMAND...` runs COMMAND here, warms it over " +
            "loopback with danki's plan, stops it, and leaves the cache its JVM wrote in FILE."

    private val words by argument(
        "DEPLOYMENT | -- COMMAND",
        help = "deployment/<name>, or after -- the command to train",
    ).multiple()
    private val namespace by option("-n", "--namespace", help = "namespace (default: the kubeconfig context's)")
    private val wait by option("--wait", help = "follow the training until the cache is Ready, Failed or Unsupported")
        .flag()
    private val timeout by option(
        "--timeout",
        help = "--wait: how long to follow (default 15m); --export: hard stop for the warm-up (default 5m)",
    ).convert { Arguments.duration(it) }
    private val export by option("--export", help = "train COMMAND here and write its cache to FILE, e.g. app.aot")
    private val url by option(
        "--url",
        help = "--export: where COMMAND listens, on loopback (default http://127.0.0.1:8080)",
    )
    private val startTimeout by option("--start-timeout", help = "--export: how long COMMAND may take to answer")
        .convert { Arguments.duration(it) }
        .default(Duration.ofSeconds(DEFAULT_START_SECONDS))
    private val stopTimeout by option(
        "--stop-timeout",
        help = "--export: how long COMMAND may take to write the cache and exit",
    ).convert { Arguments.duration(it) }
        .default(Duration.ofSeconds(DEFAULT_STOP_SECONDS))
    private val warmup by WarmupOptions()

    override fun execute(): ExitCode {
        val file = export ?: return inCluster()
        if (namespace != null || wait || looksLikeDeployment(words.firstOrNull())) {
            throw CliFailure(
                ExitCode.USAGE,
                "train either a Deployment in the cluster or a local COMMAND with --export, not both",
                "danki train deployment/<name> [-n NS] [--wait], or danki train --export app.aot -- java -jar app.jar",
            )
        }
        if (words.isEmpty()) {
            throw CliFailure(
                ExitCode.USAGE,
                "--export needs a COMMAND to train",
                "danki train --export app.aot -- java -jar app.jar",
            )
        }
        val base = BaseUrl.parse(url ?: DEFAULT_URL)
        if (!BaseUrl.isLoopback(base)) {
            // this mode sends load to a process it started itself, never to anything else
            throw CliFailure(
                ExitCode.USAGE,
                "--url $base is not on loopback: --export warms only the COMMAND it starts, on this machine",
                "pass --url http://127.0.0.1:<port> (or localhost); to warm another service, use danki bench",
            )
        }
        val timeouts = LocalTraining.Timeouts(timeout ?: WarmupPlan.DEFAULT_TIMEOUT, startTimeout, stopTimeout)
        return LocalTraining(warmup, console).run(words, File(file), base, timeouts)
    }

    private fun inCluster(): ExitCode {
        if (words.size != 1) {
            throw CliFailure(
                ExitCode.USAGE,
                if (words.isEmpty()) "name the Deployment to train" else "name one Deployment, not ${words.size} words",
                "danki train deployment/<name> [-n NS] [--wait]; to train a local COMMAND: --export FILE -- COMMAND",
            )
        }
        val localOnly = listOfNotNull(url?.let { "--url" }, warmup.paths.firstOrNull()?.let { "--paths" })
        if (localOnly.isNotEmpty()) {
            throw CliFailure(
                ExitCode.USAGE,
                "${localOnly.joinToString()} is for --export; the operator trains a Deployment on its own warm-up plan",
                "set the plan in the Deployment's danki.dev/* annotations, or train locally with --export",
            )
        }
        clients().use { client ->
            val ref = Arguments.deployment(words.single(), namespace ?: client.namespace ?: "default")
            return ClusterTraining(ClusterReader(client), console)
                .run(ref, wait, timeout ?: Duration.ofMinutes(DEFAULT_WAIT_MINUTES))
        }
    }

    /** `deployment/web` and the like as the first word after `--export`: the two modes mixed up. */
    private fun looksLikeDeployment(word: String?): Boolean =
        word != null && '/' in word && DeploymentRef.parse(word, "default").isSuccess

    private companion object {
        const val DEFAULT_URL = "http://127.0.0.1:8080"
        const val DEFAULT_START_SECONDS = 120L
        const val DEFAULT_STOP_SECONDS = 180L
        const val DEFAULT_WAIT_MINUTES = 15L
    }
}
