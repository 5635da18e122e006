package dev.danki.operator.faults

import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.boost.DeclaredCpu
import dev.danki.operator.e2e.E2eCluster
import dev.danki.operator.e2e.OperatorProcess
import dev.danki.operator.it.eventually
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.kotest.matchers.shouldBe
import java.io.File
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * The fault suite's fixture on the local cluster instance it owns (env CLUSTER_INSTANCE, default 5):
 * one namespace, two operator processes electing a leader (8 warm-ups at once, also per node), and
 * [case], which runs a fault to its decision, checks for leftovers and prints the `FAULT` line.
 */
class FaultBench(
    private val suite: String,
) {
    val repo = File(System.getenv("DANKI_REPO") ?: "..").canonicalFile
    val cluster = E2eCluster(repo)
    val client = cluster.client
    val ns = cluster.ns
    val instance = (System.getenv("CLUSTER_INSTANCE") ?: "5").toInt()
    val layout = InstanceLayout.of(repo, instance)
    private val logDir = File(repo, "operator/target/faults-logs").apply { mkdirs() }
    val operators = mutableListOf<OperatorProcess>()
    private var started = 0

    /** Short warm-ups, so 8 JVM pods on 2 cores are decided in a few minutes. */
    val warmup =
        mapOf(
            Annotations.WARMUP to "enabled",
            Annotations.PORT to "http",
            Annotations.PATHS to "GET /exams/1; GET /exams/2",
            Annotations.TIMEOUT to "4m",
            Annotations.REQUESTS to "50",
            Annotations.MIN_WARMUP_REQUESTS to "300",
            Annotations.MAX_WARMUP_REQUESTS to "1500",
        )

    fun setUp() {
        cluster.setUp()
        repeat(2) { operators += operator() }
    }

    fun tearDown() {
        operators.forEach { it.stop() }
        cluster.tearDown()
    }

    fun operator(namespace: String = ns, leaseNamespace: String = ns): OperatorProcess {
        val identity = "$suite-${cluster.suffix}-${started++}"
        return OperatorProcess(identity, listOf(namespace), leaseNamespace, logDir, OPERATOR_ENV)
    }

    /** The two operator processes again, after a case killed or stopped one. */
    fun keepTwoOperators() {
        operators.removeAll { !it.isAlive() }
        while (operators.size < 2) operators += operator()
    }

    fun leader(): OperatorProcess {
        val holder = cluster.leaseHolder()
        return operators.single { it.identity == holder }
    }

    /** A Deployment whose template carries danki's gate already, so the opt-in does not roll it. */
    fun deploy(
        app: String,
        replicas: Int,
        annotations: Map<String, String> = warmup,
        image: String = E2eCluster.SAMPLE_IMAGE,
        env: Map<String, String> = emptyMap(),
    ) {
        client.resource(cluster.deployment(app, replicas, annotations, image, env, gated = true)).create()
    }

    /**
     * A Deployment whose pods come as danki's webhook admits them with a CPU boost: the warmed container's
     * limit at [boostMillis], its [declaredMillis] in the pod's declared-CPU annotation. The fault suite's
     * operators serve no webhook; what the webhook writes is checked by BoostAdmissionTest and e2e-webhook.
     */
    fun deployBoosted(app: String, replicas: Int, declaredMillis: Long, boostMillis: Long) {
        val deployment = cluster.deployment(app, replicas, warmup, gated = true)
        val template = deployment.spec.template
        val container = template.spec.containers[0]
        container.resources =
            ResourceRequirementsBuilder()
                .addToRequests(CPU, Quantity(CpuQuantity.format(REQUEST_MILLIS)))
                .addToLimits(CPU, Quantity(CpuQuantity.format(boostMillis)))
                .build()
        val declared = DeclaredCpu(container.name, declaredMillis, null).annotation()
        template.metadata.annotations =
            template.metadata.annotations.orEmpty() + (Keys.DECLARED_CPU_ANNOTATION to declared)
        client.resource(deployment).create()
    }

    fun scale(app: String, replicas: Int) {
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName(app)
            .scale(replicas)
    }

    fun runsOf(app: String): List<WarmupRun> = cluster.runs().filter { it.spec.deployment == app }

    /** Waits until [count] of [app]'s runs are Running (k6 at work), and returns them. */
    fun awaitRunning(app: String, count: Int, timeout: Duration = Duration.ofMinutes(4)): List<WarmupRun> =
        eventually(timeout) {
            runsOf(app).filter { it.status?.phase == WarmupRun.PHASE_RUNNING }.also { (it.size >= count) shouldBe true }
        }

    /**
     * Waits until [app] has [replicas] pods and each one's gate is decided with [reason]; records
     * the seconds since the fault and the outcomes in [case].
     */
    fun awaitDecided(
        case: FaultCase,
        app: String,
        replicas: Int,
        timeout: Duration,
        reason: String = Keys.GateReasons.WARMED_UP,
        /**
         * Start an operator again once it exited, as the kubelet restarts its container: a replica exits
         * when it loses its Lease, and an API server's restart can take it from both, one after the other.
         */
        restartExited: Boolean = false,
    ) {
        val from = case.faultAt ?: System.nanoTime()
        try {
            eventually(timeout) {
                if (restartExited) restartExited(case)
                val pods = cluster.pods(app)
                pods.size shouldBe replicas
                val reasons = pods.map { decision(it) }
                case.outcomes = reasons.groupingBy { it }.eachCount()
                reasons.all { it == "True/$reason" } shouldBe true
            }
            case.decidedSeconds = FaultCase.secondsSince(from)
        } catch (e: AssertionError) {
            case.failures += "not every pod of $app decided $reason within $timeout: ${case.outcomes}"
            throw e
        } finally {
            case.runs = runsOf(app).groupingBy { "${it.status?.phase}/${it.status?.reason}" }.eachCount()
        }
    }

    private fun restartExited(case: FaultCase) {
        val alive = operators.count { it.isAlive() }
        if (alive == operators.size) return
        keepTwoOperators()
        val restarted = (case.notes["operatorsRestarted"] as? Int ?: 0) + (operators.size - alive)
        case.notes["operatorsRestarted"] = restarted
    }

    fun decision(pod: Pod): String = cluster.gateOf(pod)?.let { "${it.status}/${it.reason}" } ?: "no-condition"

    /** Waits (bounded) until nothing is left behind; records what was left at the end. */
    fun awaitClean(case: FaultCase, timeout: Duration = Duration.ofSeconds(CLEAN_SECONDS)) {
        val from = System.nanoTime()
        var last = Leftovers.of(client, ns, layout, operators)
        val end = from + timeout.toNanos()
        while (!last.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(TimeUnit.SECONDS.toMillis(1))
            last = Leftovers.of(client, ns, layout, operators)
        }
        case.cleanSeconds = FaultCase.secondsSince(from)
        case.leftovers = last.asMap()
        if (!last.isEmpty()) {
            case.failures += "left behind after $timeout: ${last.asMap().filterValues { it.isNotEmpty() }}"
        }
    }

    /** Deletes [apps] and waits (bounded) until their pods are gone, so the next case has the cores. */
    fun remove(vararg apps: String) {
        apps.forEach {
            client
                .apps()
                .deployments()
                .inNamespace(ns)
                .withName(it)
                .delete()
        }
        runCatching {
            eventually(Duration.ofSeconds(CLEAN_SECONDS)) {
                apps.sumOf { app ->
                    client
                        .pods()
                        .inNamespace(ns)
                        .withLabel("app", app)
                        .list()
                        .items.size
                } shouldBe 0
            }
        }
    }

    /**
     * Runs [body] (deploy, wait, fault, awaitDecided), then checks for leftovers, prints the FAULT
     * line, removes [apps], and fails if anything in the case failed.
     */
    fun case(name: String, title: String, vararg apps: String, body: (FaultCase) -> Unit) {
        val case = FaultCase(name, title)
        var error: Throwable? = null
        try {
            body(case)
        } catch (
            @Suppress("TooGenericExceptionCaught") e: Throwable,
        ) {
            error = e
            if (case.failures.isEmpty()) case.failures += e.toString().take(MESSAGE_CHARS)
        }
        runCatching { awaitClean(case) }.onFailure { case.failures += "leftover check failed: $it" }
        println(case.line())
        remove(*apps)
        keepTwoOperators()
        error?.let { throw it }
        if (case.failures.isNotEmpty()) throw AssertionError("$name: ${case.failures}")
    }

    companion object {
        /** Every warm-up of a case at once, none queued behind the per-node cap (default 2); the CPU boost allowed. */
        val OPERATOR_ENV =
            mapOf("DANKI_CONCURRENCY" to "8", "DANKI_NODE_CONCURRENCY" to "8", "DANKI_CPU_BOOST" to "true")
        private const val CPU = "cpu"
        private const val REQUEST_MILLIS = 50L
        const val CLEAN_SECONDS = 90L
        const val MESSAGE_CHARS = 600
    }
}
