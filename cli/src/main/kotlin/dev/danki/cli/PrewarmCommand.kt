package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.restrictTo
import io.fabric8.kubernetes.client.KubernetesClient
import java.time.Duration

/**
 * `danki prewarm deployment/<name> --replicas N`: checks, scales, follows the warm-ups, and answers
 * go (exit 0) or no-go (non-zero, with the reason per pod).
 */
class PrewarmCommand(
    console: Console,
    private val clients: () -> KubernetesClient,
) : DankiSubcommand("prewarm", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Scale an opted-in Deployment up to --replicas (through its HPA's minReplicas when one owns it), " +
            "follow each new pod's warm-up, print cold vs warm, and exit 0 only when every new pod is warmed " +
            "and under --max-warm-p95."

    private val target by argument("DEPLOYMENT", help = "deployment/<name>")
    private val replicas by option("--replicas", help = "replica count to reach").int().restrictTo(1).required()
    private val namespace by option("-n", "--namespace", help = "namespace (default: the kubeconfig context's)")
    private val timeout by option("--timeout", help = "how long to follow the warm-ups, e.g. 15m")
        .convert { Arguments.duration(it) }
        .default(Duration.ofMinutes(DEFAULT_TIMEOUT_MINUTES))
    private val maxWarmP95 by option(
        "--max-warm-p95",
        help = "no-go when a new pod's warm P95 is above this, e.g. 150ms",
    ).convert { Arguments.duration(it) }

    override fun execute(): ExitCode {
        clients().use { client ->
            val ref = Arguments.deployment(target, namespace ?: client.namespace ?: "default")
            val reader = ClusterReader(client)
            val deployment = reader.deployment(ref)
            // fails with "CRD not installed" before anything is changed
            reader.runs(ref)
            Preflight.requireOptedIn(ref, deployment, reader.namespaceLabels(ref.namespace))
            val current = deployment.spec.replicas ?: 1
            val plan = Preflight.checkReplicas(ref, current, replicas)
            val oldPods = reader.pods(deployment).map { it.metadata.uid }.toSet()
            Preflight.requireQuota(ref, reader.quotas(ref.namespace), deployment.spec.template.spec, replicas - current)
            val change =
                if (plan.scale) Scaler(reader).scale(ref, current, replicas, reader.autoscaler(ref)) else null
            console.out.println(change?.description ?: plan.note)
            val expected = if (plan.scale) replicas - current else oldPods.size
            val followedOld = if (plan.scale) oldPods else emptySet()
            val interrupt = interruptNotice(ref, change)
            Runtime.getRuntime().addShutdownHook(interrupt)
            val followed = Follower(reader, console).follow(deployment, followedOld, expected, timeout)
            Runtime.getRuntime().removeShutdownHook(interrupt)
            return judge(ref, followed, expected)
        }
    }

    private fun judge(ref: DeploymentRef, followed: List<FollowedPod>, expected: Int): ExitCode {
        val results = followed.map { it.result() }
        console.out.println()
        console.out.print(
            ResultTable.render(results, ResultTable.total("deployment/${ref.name}", results), ResultTable.Format.TABLE),
        )
        val ceiling = maxWarmP95?.toMillis()?.toDouble()
        val problems = Verdict.problems(results, ceiling).toMutableList()
        if (followed.size < expected) problems += "${expected - followed.size} of $expected new pods were never created"
        if (problems.isEmpty()) {
            console.out.println(
                "\nGO: ${results.size} new pods warmed" +
                    (ceiling?.let { ", every warm P95 <= ${ResultTable.ms(it)} ms" } ?: ""),
            )
            return ExitCode.OK
        }
        console.out.println("\nNO-GO:")
        problems.forEach { console.out.println("  $it") }
        val undecided = followed.size < expected || followed.any { !it.state.decided }
        return if (undecided) ExitCode.TIMED_OUT else ExitCode.NO_GO
    }

    /** Ctrl-C ends following, never the scale-up: say so, and how to undo it. */
    private fun interruptNotice(ref: DeploymentRef, change: ScaleChange?) =
        Thread {
            val undo = change?.let { " To undo: ${it.undo}" } ?: ""
            console.err.println("\ninterrupted: stopped following $ref; the scale stays.$undo")
            console.err.println("  see the results later: danki report deployment/${ref.name} -n ${ref.namespace}")
        }

    private companion object {
        const val DEFAULT_TIMEOUT_MINUTES = 15L
    }
}
