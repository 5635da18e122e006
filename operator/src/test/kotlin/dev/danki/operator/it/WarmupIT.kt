package dev.danki.operator.it

import dev.danki.operator.Operator
import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.RunStore
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.FailurePolicy
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.Watcher
import io.fabric8.kubernetes.client.WatcherException
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.collections.shouldContainInOrder
import io.kotest.matchers.doubles.plusOrMinus
import io.kotest.matchers.doubles.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.net.ServerSocket
import java.time.Duration
import java.util.Collections

/**
 * The operator in-process against a real kube-apiserver (no kubelet: the tests write pod status as a
 * kubelet would) and real k6 against a loopback HTTP server standing in for the pod.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WarmupIT {
    private val space = ItNamespace("danki-it-warmup")
    private val target = TestTarget(200)
    private val failing = TestTarget(500)
    private val compiling = TestTarget(jitBusyRequests = 600)
    private val compilingWithCpu = TestTarget(jitBusyRequests = 600, cpuMsPerRequest = CPU_MS_PER_REQUEST)

    /** Where a redirecting pod points: another tenant's pod, the metadata address, anything. */
    private val elsewhere = TestTarget(200)
    private val redirecting = TestTarget(redirectTo = "http://127.0.0.1:${elsewhere.port}/steal")
    private lateinit var operator: Operator

    private val fast = Fixtures.FAST_PLAN

    @BeforeAll
    fun start() {
        operator = space.operator()
    }

    @AfterAll
    fun stop() {
        operator.stop()
        target.close()
        failing.close()
        compiling.close()
        compilingWithCpu.close()
        elsewhere.close()
        redirecting.close()
    }

    @Test
    fun `a ready gated pod is warmed by k6 and its pods-status condition is applied by danki`() {
        space.create(Fixtures.deployment(space.ns, "warm", fast + (Annotations.PORT to target.port.toString())))
        space.createReadyPod("warm", "warm-abc123-x1", target.port)
        val finished =
            eventually(Duration.ofSeconds(60)) {
                val r = space.run("warm-abc123-x1").shouldNotBeNull()
                r.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
                r
            }
        val status = finished.status
        status.podName shouldBe "warm-abc123-x1"
        status.podIP shouldBe "127.0.0.1"
        status.startTime.shouldNotBeNull()
        status.completionTime.shouldNotBeNull()
        status.requests!!.cold shouldBe 20L
        status.requests!!.warm shouldBe 20L
        status.requests!!.warmup!! shouldBeGreaterThan 0L
        status.cold!!.p95!! shouldBeGreaterThan 0.0
        status.warm!!.p95!! shouldBeGreaterThan 0.0
        listOf("Converged", "TargetReached", "MaxRequests", "Timeout") shouldContain status.stopReason
        // the cold figures are the warm-up's first 20 answers; the warm pass is one of its own
        status.cold!!.source shouldBe "warmup"
        status.cold!!.concurrency shouldBe 4
        status.warm!!.source shouldBe "closed"
        status.warm!!.concurrency shouldBe 4
        val evidence = status.stopEvidence.shouldNotBeNull()
        evidence.rule shouldBe "throughput"
        // the rules judged the loop's requests, the cold 20 included;
        // the warm-up phase adds the drain's 10 (1 s at 10/s)
        evidence.requests shouldBe status.requests!!.cold!! + status.requests!!.warmup!! - 10L
        evidence.drainSeconds shouldBe 1.0
        evidence.blockSize shouldBe 200
        evidence.concurrency shouldBe 4
        evidence.lastBlockP95.shouldNotBeNull()
        evidence.jitCompileMillis shouldBe null
        status.queueWait.shouldNotBeNull()
        status.conditions!!.single().reason shouldBe Keys.RunConditions.REASON_SUCCEEDED
        finished.metadata.ownerReferences
            .single()
            .kind shouldBe "Pod"
        eventually(Duration.ofSeconds(10)) {
            val condition = space.gate("warm-abc123-x1").shouldNotBeNull()
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMED_UP
            condition.message shouldContain "cold p95"
        }
        val statusManager =
            space
                .pod("warm-abc123-x1")!!
                .metadata.managedFields
                .single { it.manager == Keys.FIELD_MANAGER }
        statusManager.subresource shouldBe "status"
        statusManager.operation shouldBe "Apply"
        eventually(Duration.ofSeconds(10)) {
            space.events("warm-abc123-x1").map { it.reason }.toSet() shouldBe
                setOf(Keys.EventReasons.WARMUP_STARTED, Keys.EventReasons.WARMED_UP)
        }
        target.warmupHeaders.get() shouldBe target.requests.get()
    }

    @Test
    fun `with jit metrics the warm-up runs until the pod's JIT counter is quiet, and records the JIT time`() {
        val status = warmedWithMetricsPage("jit", compiling)
        status.stopReason shouldBe "JitSettled"
        val evidence = status.stopEvidence!!
        evidence.rule shouldBe "jit"
        evidence.jitMetric shouldBe "jvm_compilation_time_ms_total"
        // the counter grew for the first 600 requests, all of them seen by the warm-up (the cold figures are its first)
        evidence.jitCompileMillis!! shouldBeGreaterThan 10_000.0
        // the throughput (flat here) needs two windows of 3 blocks, 1,200 answers, and the compiler two quiet reads
        evidence.requests!! shouldBeGreaterThan 1_199L
    }

    @Test
    fun `with the process CPU counter on the page too, the cpu rule judges and records the CPU per request`() {
        val status = warmedWithMetricsPage("cpu", compilingWithCpu)
        status.stopReason shouldBe "JitSettled"
        val evidence = status.stopEvidence!!
        evidence.rule shouldBe "cpu"
        evidence.cpuMetric shouldBe "process_cpu_seconds_total"
        // the page's cost is flat: both windows near it (the reads count answers mid-request, so not exactly)
        evidence.recentCpuPerRequestMillis!! shouldBe (CPU_MS_PER_REQUEST plusOrMinus CPU_MS_PER_REQUEST * 0.2)
        evidence.earlierCpuPerRequestMillis!! shouldBe (CPU_MS_PER_REQUEST plusOrMinus CPU_MS_PER_REQUEST * 0.2)
        // the compiler is busy for the first 600 requests: two quiet reads come after them
        evidence.requests!! shouldBeGreaterThan 600L
    }

    @Test
    fun `a metrics page without a JIT counter falls back to the throughput rule and says why`() {
        val annotations =
            fast + (Annotations.PORT to target.port.toString()) + (Annotations.JIT_METRICS to "${target.port}/nothing")
        space.create(Fixtures.deployment(space.ns, "nojit", annotations))
        space.createReadyPod("nojit", "nojit-abc123-x1", target.port)
        val status =
            eventually(Duration.ofSeconds(60)) {
                space.run("nojit-abc123-x1")!!.status.also { it.phase shouldBe WarmupRun.PHASE_SUCCEEDED }
            }
        status.stopEvidence!!.rule shouldBe "throughput"
        status.stopEvidence!!.jitError!! shouldContain "no JIT counter"
    }

    @Test
    fun `a pod answering with redirects fails its warm-up, and the redirect target gets no request`() {
        val annotations = fast + (Annotations.PORT to redirecting.port.toString()) + (Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "redirect", annotations))
        space.createReadyPod("redirect", "redirect-abc123-x1", redirecting.port)
        eventually(Duration.ofSeconds(40)) {
            val r = space.run("redirect-abc123-x1")!!
            r.status.phase shouldBe WarmupRun.PHASE_FAILED
            r.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
            r.status.message shouldContain "307 from GET / (redirects are not followed"
        }
        (redirecting.requests.get() > 0) shouldBe true
        elsewhere.requests.get() shouldBe 0
    }

    @Test
    fun `with accept-redirects a 3xx counts as an answer, and is still not followed`() {
        val annotations =
            fast + (Annotations.PORT to redirecting.port.toString()) + (Annotations.ACCEPT_REDIRECTS to "true")
        space.create(Fixtures.deployment(space.ns, "redirect-ok", annotations))
        space.createReadyPod("redirect-ok", "redirect-ok-abc123-x1", redirecting.port)
        eventually(Duration.ofSeconds(60)) {
            space.run("redirect-ok-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
        }
        elsewhere.requests.get() shouldBe 0
    }

    @Test
    fun `a container restart sets the gate False and warms the pod again`() {
        space.create(Fixtures.deployment(space.ns, "restart", fast + (Annotations.PORT to target.port.toString())))
        val pod = space.createReadyPod("restart", "restart-abc123-x1", target.port)
        eventually(Duration.ofSeconds(60)) { space.gate("restart-abc123-x1")!!.status shouldBe "True" }
        // every change of the gate condition from here on, as the API server stores them
        val seen = Collections.synchronizedList(mutableListOf<String>())
        val watch =
            space.client
                .pods()
                .inNamespace(space.ns)
                .withName("restart-abc123-x1")
                .watch(
                    object : Watcher<Pod> {
                        override fun eventReceived(action: Watcher.Action, resource: Pod) {
                            PodGate.conditionOf(resource)?.let { c -> "${c.status}/${c.reason}" }?.let {
                                if (seen.lastOrNull() != it) seen += it
                            }
                        }

                        override fun onClose(cause: WatcherException?) = Unit
                    },
                )
        watch.use {
            Fixtures.markReady(space.client, pod, "127.0.0.1", restarts = 1)
            val again = RunStore.runName("restart-abc123-x1", 1)
            eventually(Duration.ofSeconds(60)) { space.run(again)!!.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED }
            eventually(Duration.ofSeconds(10)) { seen.lastOrNull() shouldBe "True/${Keys.GateReasons.WARMED_UP}" }
        }
        val reset = "False/${Keys.GateReasons.CONTAINER_RESTARTED}"
        seen shouldContainInOrder listOf(reset, "True/${Keys.GateReasons.WARMED_UP}")
    }

    @Test
    fun `an invalid annotation is a Warning event and the open policy releases the pod`() {
        val annotations = fast + (Annotations.RATE to "fast") + (Annotations.PORT to "8080")
        space.create(Fixtures.deployment(space.ns, "bad", annotations))
        eventually(Duration.ofSeconds(20)) {
            val warning = space.events("bad").single { it.reason == Keys.EventReasons.INVALID_CONFIG }
            warning.type shouldBe "Warning"
            warning.message shouldContain "danki.dev/rate=\"fast\": expected requests per second"
        }
        space.createReadyPod("bad", "bad-abc123-x1", 8080)
        eventually(Duration.ofSeconds(20)) {
            val condition = space.gate("bad-abc123-x1")!!
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
        }
        // the gate is written before the record (RunRecorder.publish): the run may follow a moment later
        eventually(Duration.ofSeconds(10)) {
            val r = space.run("bad-abc123-x1")!!
            r.status.phase shouldBe WarmupRun.PHASE_FAILED
            r.status.reason shouldBe Keys.RunConditions.REASON_INVALID_CONFIG
        }
    }

    @Test
    fun `a target answering 500 fails closed and the pod stays gated`() {
        val annotations =
            fast + (Annotations.PORT to failing.port.toString()) +
                (Annotations.FAILURE_POLICY to FailurePolicy.CLOSED.value) + (Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "broken", annotations))
        space.createReadyPod("broken", "broken-abc123-x1", failing.port)
        eventually(Duration.ofSeconds(40)) {
            val r = space.run("broken-abc123-x1")!!
            r.status.phase shouldBe WarmupRun.PHASE_FAILED
            r.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
            r.status.message shouldContain "500 from GET /"
            (r.status.attempts!! > 1) shouldBe true
        }
        eventually(Duration.ofSeconds(10)) {
            val condition = space.gate("broken-abc123-x1")!!
            condition.status shouldBe "False"
            condition.reason shouldBe Keys.GateReasons.WARMUP_FAILED
        }
        space.events("broken-abc123-x1").single { it.reason == Keys.EventReasons.WARMUP_FAILED }.type shouldBe "Warning"
    }

    @Test
    fun `an unreachable target is retried, then the open policy releases the pod`() {
        val closedPort = ServerSocket(0).use { it.localPort }
        val annotations = fast + (Annotations.PORT to closedPort.toString()) + (Annotations.TIMEOUT to "12s")
        space.create(Fixtures.deployment(space.ns, "nobody", annotations))
        space.createReadyPod("nobody", "nobody-abc123-x1", closedPort)
        eventually(Duration.ofSeconds(40)) {
            val r = space.run("nobody-abc123-x1")!!
            r.status.phase shouldBe WarmupRun.PHASE_FAILED
            r.status.reason shouldBe Keys.RunConditions.REASON_TOO_MANY_ERRORS
            r.status.message shouldContain "no answer"
            (r.status.attempts!! > 1) shouldBe true
        }
        eventually(Duration.ofSeconds(10)) {
            val condition = space.gate("nobody-abc123-x1")!!
            condition.status shouldBe "True"
            condition.reason shouldBe Keys.GateReasons.WARMUP_FAILED_OPEN
        }
    }

    @Test
    fun `a WarmupRun deleted during the warm-up comes back with the result, and the gate is written`() {
        space.create(Fixtures.deployment(space.ns, "vanish", fast + (Annotations.PORT to target.port.toString())))
        space.createReadyPod("vanish", "vanish-abc123-x1", target.port)
        val first =
            eventually(Duration.ofSeconds(30)) {
                space.run("vanish-abc123-x1")!!.also { it.status.phase shouldBe WarmupRun.PHASE_RUNNING }
            }
        space.client
            .resources(WarmupRun::class.java)
            .inNamespace(space.ns)
            .withName("vanish-abc123-x1")
            .delete()
        eventually(Duration.ofSeconds(60)) {
            space.gate("vanish-abc123-x1")!!.reason shouldBe Keys.GateReasons.WARMED_UP
        }
        eventually(Duration.ofSeconds(10)) {
            val again = space.run("vanish-abc123-x1")!!
            again.metadata.uid shouldNotBe first.metadata.uid
            again.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
            again.metadata.ownerReferences
                .single()
                .name shouldBe "vanish-abc123-x1"
        }
    }

    /**
     * Deployment [name] warming [page]'s target with danki.dev/jit-metrics on its `/metrics`, no floor and at most
     * 3,000 requests: the status of its pod's run once it succeeded.
     */
    private fun warmedWithMetricsPage(name: String, page: TestTarget): WarmupRunStatus {
        val annotations =
            fast + (Annotations.PORT to page.port.toString()) + (Annotations.MAX_WARMUP_REQUESTS to "3000") +
                (Annotations.MIN_WARMUP_REQUESTS to "0") + (Annotations.JIT_METRICS to "${page.port}/metrics")
        space.create(Fixtures.deployment(space.ns, name, annotations))
        space.createReadyPod(name, "$name-abc123-x1", page.port)
        return eventually(Duration.ofSeconds(60)) {
            space.run("$name-abc123-x1")!!.status.also { it.phase shouldBe WarmupRun.PHASE_SUCCEEDED }
        }
    }

    private companion object {
        /** The CPU one request costs on [compilingWithCpu]'s page, ms. */
        const val CPU_MS_PER_REQUEST = 2.0
    }
}
