package dev.danki.operator.bench

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.e2e.OperatorProcess
import dev.danki.operator.it.Fixtures
import dev.danki.operator.it.TestApiServer
import dev.danki.operator.kube.Keys
import dev.danki.operator.testkit.Manifests
import dev.danki.operator.webhook.Certificates
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import org.junit.jupiter.api.Test
import java.io.File
import java.net.ServerSocket
import java.nio.file.Files
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * What the operator's memory grows with (issue 48, hole 5), measured on the operator jar run as a process
 * of its own in webhook mode, against a real kube-apiserver with etcd (`make bench-cache`):
 * [COUNTS] pods in the cluster, half of them danki's (an opted-in Deployment's, gated, labelled and
 * already decided), half of Deployments that are not opted in. No kubelet runs them; their status is
 * written as a kubelet writes it, so that each object is the size a real pod's is.
 *
 * For each count and build, [TRIALS] starts of the operator: the time from the process's start to its
 * first decision (a probe pod whose Deployment has an invalid plan, failed open at once), its resident
 * memory once settled, and the live heap after a full GC. The build before the pod cache took a label
 * selector is measured beside this one when `BEFORE_JAR` names its operator-all.jar.
 *
 * Writes bench/results/pod-cache.md and .json. The goal (at most 256 MiB resident with 10,000 pods in
 * the cluster) is reported, not asserted.
 */
class PodCacheBench {
    private val client = TestApiServer.client
    private val mapper = ObjectMapper()

    private data class Trial(
        val build: String,
        val pods: Int,
        val trial: Int,
        val readySeconds: Double,
        val decidedSeconds: Double,
        val rssMib: Double,
        val liveHeapMib: Double,
        val load: Double,
    )

    @Test
    fun `operator memory and first decision with 1,000 and 10,000 pods in the cluster`() {
        Fixtures.namespace(client, NS)
        val work = Files.createTempDirectory("danki-bench-cache").toFile()
        val env = operatorEnv(work)
        val builds =
            listOfNotNull(
                "this build" to File(TestApiServer.repo, "operator/target/operator-all.jar"),
                System.getenv("BEFORE_JAR")?.let { (System.getenv("BEFORE_LABEL") ?: "before") to File(it) },
            )
        client.resource(Manifests.deployment(NS, PROBE, PROBE_PLAN)).create()
        val trials = mutableListOf<Trial>()
        var created = 0
        try {
            for (count in COUNTS) {
                val started = System.nanoTime()
                createPods(created, count)
                created = count
                println("bench-cache: $count pods in the cluster (${seconds(started)} s to create)")
                trials += trials(builds, env, count, work)
            }
        } finally {
            client.namespaces().withName(NS).delete()
        }
        write(trials)
    }

    private fun operatorEnv(work: File): Map<String, String> {
        val kubeconfig = File(work, "kubeconfig").apply { writeText(TestApiServer.kubeconfig) }
        val certs = File(work, "certs").apply { mkdirs() }
        val now = Instant.now()
        val ca = Certificates.newCa(now, Duration.ofDays(1))
        val serving = Certificates.newServing(ca, listOf("localhost"), now, Duration.ofDays(1))
        File(certs, Keys.WebhookSecret.TLS_CERT).writeText(Certificates.pem(serving.certificate))
        File(certs, Keys.WebhookSecret.TLS_KEY).writeText(Certificates.pem(serving.key))
        return mapOf(
            // the JVM as the image runs it under the chart's memory limit, not this machine's RAM (its
            // initial heap, 1/64 of that, is what a process touches first)
            "JAVA_TOOL_OPTIONS" to
                "-XX:MaxRAM=${CONTAINER_LIMIT_MIB}m -XX:MaxRAMPercentage=25 -XX:+ExitOnOutOfMemoryError",
            "KUBECONFIG" to kubeconfig.path,
            "POD_NAMESPACE" to NS,
            // no runner pods, as the chart installs danki by default
            "DANKI_RUNNER_IMAGE" to "",
            "DANKI_LEADER_ELECTION" to "false",
            "DANKI_GATE_INJECTION" to "webhook",
            "DANKI_WEBHOOK_CERT_DIR" to certs.path,
            "DANKI_WEBHOOK_SERVICE" to "danki-bench",
            "DANKI_WEBHOOK_CONFIGURATION" to "danki-bench",
            "DANKI_WEBHOOK_PORT" to ServerSocket(0).use { it.localPort }.toString(),
        )
    }

    /** Pods [from] until [until]: every [PODS_PER_DEPLOYMENT] a Deployment, opted in and not by turns. */
    private fun createPods(from: Int, until: Int) {
        val pool = Executors.newFixedThreadPool(WRITERS)
        try {
            (from until until)
                .map { i ->
                    pool.submit {
                        val deployment = i / PODS_PER_DEPLOYMENT
                        val optedIn = deployment % 2 == 0
                        val name = (if (optedIn) "opted-" else "plain-") + deployment
                        if (i % PODS_PER_DEPLOYMENT == 0) {
                            val annotations = if (optedIn) mapOf(Keys.Annotations.WARMUP to "enabled") else emptyMap()
                            client.resource(Manifests.deployment(NS, name, annotations)).create()
                        }
                        val pod = client.resource(pod(name, "$name-${Fixtures.HASH}-$i", optedIn)).create()
                        writeStatus(pod, i, decided = optedIn)
                    }
                }.forEach { it.get() }
        } finally {
            pool.shutdownNow()
        }
    }

    /** A pod as its ReplicaSet makes it, with what a real one carries: env, resources, a probe. */
    private fun pod(deployment: String, name: String, optedIn: Boolean): Pod {
        val base =
            if (optedIn) {
                Fixtures.gatedPod(
                    NS,
                    deployment,
                    name,
                    PORT,
                )
            } else {
                Fixtures.unlabeledPod(NS, deployment, name, PORT)
            }
        return PodBuilder(base)
            .editSpec()
            .editFirstContainer()
            .apply { ENV.forEach { (k, v) -> addNewEnv().withName(k).withValue(v).endEnv() } }
            .withNewResources()
            .addToRequests(
                "cpu",
                io.fabric8.kubernetes.api.model
                    .Quantity("250m"),
            ).addToRequests(
                "memory",
                io.fabric8.kubernetes.api.model
                    .Quantity("512Mi"),
            ).addToLimits(
                "memory",
                io.fabric8.kubernetes.api.model
                    .Quantity("512Mi"),
            ).endResources()
            .withNewReadinessProbe()
            .withNewHttpGet()
            .withPath("/readyz")
            .withNewPort(PORT)
            .endHttpGet()
            .endReadinessProbe()
            .endContainer()
            .withNodeName("bench-node")
            .endSpec()
            .build()
    }

    /** Running and Ready as a kubelet writes it; a danki pod's gate is True already (decided earlier). */
    private fun writeStatus(pod: Pod, i: Int, decided: Boolean) {
        val now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        val ip = "198.18.${i / IPS_PER_OCTET % IPS_PER_OCTET}.${i % IPS_PER_OCTET}"
        val conditions =
            listOf("PodScheduled", "Initialized", "ContainersReady", "Ready") +
                listOfNotNull(Keys.GATE_CONDITION.takeIf { decided })
        val body =
            mapOf(
                "status" to
                    mapOf(
                        "phase" to "Running",
                        "hostIP" to "198.19.0.1",
                        "podIP" to ip,
                        "podIPs" to listOf(mapOf("ip" to ip)),
                        "startTime" to now,
                        "qosClass" to "Burstable",
                        "conditions" to
                            conditions.map {
                                mapOf("type" to it, "status" to "True", "lastTransitionTime" to now)
                            },
                        "containerStatuses" to
                            listOf(
                                mapOf(
                                    "name" to "app",
                                    "ready" to true,
                                    "started" to true,
                                    "restartCount" to 0,
                                    "image" to "danki/sample-service:dev",
                                    "imageID" to "sha256:" + "0".repeat(DIGEST_LENGTH),
                                    "containerID" to "containerd://" + "%064x".format(i),
                                    "state" to mapOf("running" to mapOf("startedAt" to now)),
                                ),
                            ),
                    ),
            )
        client
            .pods()
            .inNamespace(NS)
            .withName(pod.metadata.name)
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON_MERGE), mapper.writeValueAsString(body))
    }

    /** [TRIALS] starts of each build, the builds taking turns so that the machine's load weighs on each alike. */
    private fun trials(builds: List<Pair<String, File>>, env: Map<String, String>, count: Int, work: File) =
        (1..TRIALS).flatMap { trial ->
            builds.mapIndexed { index, (build, jar) ->
                val operator = { OperatorProcess("bench-cache-$index-$count-$trial", emptyList(), NS, work, env, jar) }
                trial(build, operator, count, trial).also { println("bench-cache: $it") }
            }
        }

    /**
     * One start of [build] (an operator process in webhook mode, all namespaces watched, from [start]) with
     * [count] pods in the cluster; the probe pod is made anew, undecided.
     */
    private fun trial(build: String, start: () -> OperatorProcess, count: Int, trial: Int): Trial {
        resetProbe()
        val started = System.nanoTime()
        val operator = start()
        val log = operator.log
        try {
            var ready: Double? = null
            var decided: Double? = null
            val deadline = started + DECISION_TIMEOUT.toNanos()
            // ready comes after the first decision when the webhook's warm-up takes longer than the sync
            while (decided == null || ready == null) {
                check(operator.isAlive()) { "the operator exited; see $log" }
                check(System.nanoTime() < deadline) { "not ready and decided within $DECISION_TIMEOUT; see $log" }
                if (ready == null && operator.ready()) ready = seconds(started)
                if (decided == null && probeDecided()) decided = seconds(started)
                Thread.sleep(POLL_MILLIS)
            }
            Thread.sleep(SETTLE.toMillis())
            val rss = ProcessMemory.rssMib(operator.pid)
            val heap = ProcessMemory.liveHeapMib(operator.pid)
            return Trial(build, count, trial, checkNotNull(ready), checkNotNull(decided), rss, heap, loadAverage())
        } finally {
            operator.stop()
        }
    }

    private fun resetProbe() {
        client
            .pods()
            .inNamespace(NS)
            .withName(PROBE_POD)
            .withGracePeriod(0)
            .delete()
        client.resources(dev.danki.operator.kube.WarmupRun::class.java).inNamespace(NS).delete()
        val deadline = System.nanoTime() + DECISION_TIMEOUT.toNanos()
        while (client
                .pods()
                .inNamespace(NS)
                .withName(PROBE_POD)
                .get() != null
        ) {
            check(System.nanoTime() < deadline) { "probe pod not deleted" }
            Thread.sleep(POLL_MILLIS)
        }
        client.resource(Fixtures.gatedPod(NS, PROBE, PROBE_POD, PORT)).create()
    }

    private fun probeDecided(): Boolean =
        client
            .pods()
            .inNamespace(NS)
            .withName(PROBE_POD)
            .get()
            ?.status
            ?.conditions
            .orEmpty()
            .any { it.type == Keys.GATE_CONDITION }

    private fun write(trials: List<Trial>) {
        val dir = File(TestApiServer.repo, "bench/results").apply { mkdirs() }
        val rows =
            trials
                .groupBy { it.pods to it.build }
                .map { (key, group) ->
                    val (pods, build) = key
                    val rss = group.map { it.rssMib }
                    val goal =
                        if (pods >= GOAL_PODS) {
                            if (median(rss) <=
                                GOAL_RSS_MIB
                            ) {
                                "met (<= $GOAL_RSS_MIB MiB)"
                            } else {
                                "MISSED (> $GOAL_RSS_MIB MiB)"
                            }
                        } else {
                            "no goal"
                        }
                    "| %,d | %s | %s | %s | %s | %s | %s |".format(
                        pods,
                        build,
                        spread(rss),
                        spread(group.map { it.liveHeapMib }),
                        spread(group.map { it.readySeconds }),
                        spread(group.map { it.decidedSeconds }),
                        goal,
                    )
                }
        val md =
            listOf(
                "# The operator's memory with the cluster's pods",
                "",
                "Measured ${Instant.now().truncatedTo(ChronoUnit.SECONDS)} by `make bench-cache`",
                "(operator/src/test/kotlin/dev/danki/operator/bench/PodCacheBench.kt) on " +
                    "${Runtime.getRuntime().availableProcessors()} cores, JDK ${Runtime.version()}, " +
                    "1-minute load average ${trials.minOf { it.load }}-${trials.maxOf { it.load }} at the samples.",
                "The operator jar runs as a process of its own in webhook mode (the image's JVM flags under the",
                "chart's 2 GiB limit: a ${CONTAINER_LIMIT_MIB / 4} MiB heap) against a real kube-apiserver with etcd",
                "on the same machine. Half the pods are an opted-in Deployment's (gated, labelled, decided), half",
                "are Deployments' that are not opted in; $PODS_PER_DEPLOYMENT pods per Deployment, each with the",
                "status a kubelet writes. $TRIALS starts of the operator per row, median (min-max):",
                "",
                "- **RSS**: resident memory ${SETTLE.seconds} s after ready and the first decision, before any",
                "  forced GC.",
                "- **live heap**: heap in use right after a full GC (`jcmd GC.run`, then `GC.heap_info`).",
                "- **ready**: from the process's start to `/readyz` 200 (every informer listed once and the",
                "  webhook warmed).",
                "- **first decision**: from the process's start to the gate written on a probe pod (a",
                "  Deployment with an invalid plan, failed open without a warm-up).",
                "",
                "| pods in the cluster | build | RSS MiB | live heap MiB | ready s | first decision s | RSS goal |",
                "|---|---|---|---|---|---|---|",
            ) + rows
        File(dir, "pod-cache.md").writeText(md.joinToString("\n", postfix = "\n"))
        File(dir, "pod-cache.json").writeText(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(trials) + "\n")
        println(md.joinToString("\n"))
    }

    private fun spread(values: List<Double>): String =
        "%.1f (%.1f-%.1f)".format(median(values), values.min(), values.max())

    private fun median(values: List<Double>): Double = values.sorted().let { it[(it.size - 1) / 2] }

    private fun seconds(since: Long): Double =
        Math.round((System.nanoTime() - since) / NANOS_PER_MILLI) / MILLIS_PER_SECOND

    private fun loadAverage(): Double =
        File("/proc/loadavg")
            .readText()
            .substringBefore(' ')
            .toDouble()

    private companion object {
        const val NS = "danki-bench-cache"

        /** The chart's memory limit (values.yaml `resources.limits.memory`); the image's heap is 25 % of it. */
        const val CONTAINER_LIMIT_MIB = 2048
        const val PROBE = "probe"
        const val PROBE_POD = "probe-${Fixtures.HASH}-x"
        val PROBE_PLAN = mapOf(Keys.Annotations.WARMUP to "enabled", Keys.Annotations.REQUESTS to "lots")
        val COUNTS = listOf(1_000, 10_000)
        const val TRIALS = 3
        const val PODS_PER_DEPLOYMENT = 10
        const val WRITERS = 16
        const val PORT = 8080
        const val IPS_PER_OCTET = 250
        const val DIGEST_LENGTH = 64
        const val GOAL_PODS = 10_000
        const val GOAL_RSS_MIB = 256
        const val POLL_MILLIS = 100L
        const val NANOS_PER_MILLI = 1e6
        const val MILLIS_PER_SECOND = 1e3
        val SETTLE: Duration = Duration.ofSeconds(20)
        val DECISION_TIMEOUT: Duration = Duration.ofMinutes(3)
        val ENV =
            mapOf(
                "JAVA_TOOL_OPTIONS" to "-XX:MaxRAMPercentage=60",
                "DATABASE_URL" to "jdbc:postgresql://exam-db.exam.svc.cluster.local:5432/exam",
                "SPRING_PROFILES_ACTIVE" to "production",
                "OTEL_EXPORTER_OTLP_ENDPOINT" to "http://otel-collector.observability.svc:4317",
                "LOG_FORMAT" to "json",
            )
    }
}
