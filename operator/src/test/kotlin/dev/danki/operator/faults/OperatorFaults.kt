package dev.danki.operator.faults

import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.e2e.OperatorProcess
import dev.danki.operator.it.eventually
import io.fabric8.kubernetes.api.model.NamespaceBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import java.time.Duration

/**
 * Issue 13 faults 1 and 9: the operator itself killed, and started without its CRD (last: it deletes the
 * CRD); issue 47's 10: the leader killed between pods' CPU boost and its restore.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class OperatorFaults {
    private val bench = FaultBench("op")

    @BeforeAll
    fun start() = bench.setUp()

    @AfterAll
    fun stop() = bench.tearDown()

    @Test
    @Order(1)
    fun `1 leader SIGKILLed with 8 warm-ups in flight - the standby finishes them`() =
        bench.case("leader-killed", "the leader SIGKILLed with warm-ups in flight", "leader") { case ->
            bench.deploy("leader", PODS)
            case.did("deployed $PODS sample pods (operators: DANKI_CONCURRENCY=8, DANKI_NODE_CONCURRENCY=8)")
            val running = bench.awaitRunning("leader", IN_FLIGHT)
            val phases = bench.runsOf("leader").groupingBy { it.status?.phase ?: "none" }.eachCount()
            case.notes["runsAtFault"] = phases
            val first = bench.leader()
            case.notes["k6ChildrenAtFault"] = first.k6Children().size
            case.fault("SIGKILLed leader ${first.identity} with ${running.size} runs Running (all runs: $phases)")
            first.kill()
            bench.awaitDecided(case, "leader", PODS, Duration.ofMinutes(DECIDE_MINUTES))
            val next = bench.leader()
            case.notes["newLeaderIsStandby"] = next !== first && next.isAlive()
            next.isAlive() shouldBe true
        }

    @Test
    @Order(2)
    fun `10 leader SIGKILLed between pods' boost from admission and its restore - they join at their declared CPU`() =
        bench.case("boost-leader-killed", "the leader SIGKILLed while boosted pods warm", "boosted") { case ->
            bench.deployBoosted("boosted", BOOSTED_PODS, DECLARED_MILLIS, BOOST_MILLIS)
            case.did(
                "deployed $BOOSTED_PODS sample pods as the webhook admits them with a boost: CPU limit " +
                    "${CpuQuantity.format(BOOST_MILLIS)}, ${CpuQuantity.format(DECLARED_MILLIS)} declared on the pod",
            )
            bench.awaitRunning("boosted", BOOSTED_PODS)
            val atBoost = bench.cluster.pods("boosted").count { cpuOf(it) == "$BOOST_MILLIS/$BOOST_MILLIS" }
            case.notes["podsAtBoostAtFault"] = atBoost
            val first = bench.leader()
            case.fault("SIGKILLed leader ${first.identity} with $atBoost of $BOOSTED_PODS pods at their boost")
            first.kill()
            bench.awaitDecided(case, "boosted", BOOSTED_PODS, Duration.ofMinutes(DECIDE_MINUTES))
            // the gate is set after the restore: each pod's spec and the kubelet's status say its declared CPU
            val after = bench.cluster.pods("boosted").map(::cpuOf)
            case.notes["cpuSpecAndKubeletAfter"] = after
            case.notes["boosts"] =
                bench.runsOf("boosted").map { run -> run.status?.cpuBoost?.let { "${it.state} ${it.summary}" } }
            if (atBoost == 0) case.failures += "no pod was still at its boost when the leader was killed"
            if (after.any { it != "$DECLARED_MILLIS/$DECLARED_MILLIS" }) {
                case.failures += "pods not at their declared CPU (spec/kubelet, millicores): $after"
            }
        }

    /** The warmed container's CPU limit in millicores, as its spec asks and as the kubelet reports it. */
    private fun cpuOf(pod: Pod): String {
        val spec =
            pod.spec.containers[0]
                .resources
                ?.limits
                ?.get("cpu")
        val kubelet =
            pod.status
                ?.containerStatuses
                ?.firstOrNull()
                ?.resources
                ?.limits
                ?.get("cpu")
        return "${CpuQuantity.millisOf(spec)}/${CpuQuantity.millisOf(kubelet)}"
    }

    @Test
    @Order(3)
    fun `9 CRD missing at start-up - health answers 503, and after install and restart pods are warmed`() =
        bench.case("crd-missing", "the WarmupRun CRD missing at operator start-up, then installed", "crd") { case ->
            // nobody else may use the CRD: this suite owns the instance, this class's operators stop
            bench.operators.forEach { it.stop() }
            bench.operators.clear()
            val crds =
                bench.client
                    .apiextensions()
                    .v1()
                    .customResourceDefinitions()
            crds.withName(CRD).delete()
            eventually(Duration.ofSeconds(WAIT_SECONDS)) { crds.withName(CRD).get() shouldBe null }
            case.did("stopped the operators, deleted CRD $CRD")
            val leaseNs = "${bench.ns}-crd"
            bench.client
                .namespaces()
                .resource(
                    NamespaceBuilder()
                        .withNewMetadata()
                        .withName(leaseNs)
                        .endMetadata()
                        .build(),
                ).create()
            val started = List(2) { bench.operator(leaseNamespace = leaseNs) }
            bench.operators += started
            bench.deploy("crd", 1)
            case.did("started 2 operators (Lease in $leaseNs) and deployed 1 sample pod")
            val health = observeHealth(started)
            case.notes["healthWhileCrdMissing"] = health
            val failing = started.filter { health[it.identity] == BOTH_UNAVAILABLE }
            if (failing.isEmpty()) {
                case.failures += "no operator answered 503 on /healthz and /readyz without the CRD: $health"
            }
            bench.cluster.applyCrds()
            // the kubelet restarts a replica whose liveness probe fails; one that answers 200 it leaves alone
            case.fault("installed the CRD; restarted the ${failing.size} operator(s) whose /healthz failed")
            failing.forEach { it.stop() }
            bench.keepTwoOperators()
            bench.awaitDecided(case, "crd", 1, Duration.ofMinutes(if (failing.isEmpty()) 2 else DECIDE_MINUTES))
            bench.client
                .namespaces()
                .withName(leaseNs)
                .delete()
        }

    /**
     * Each operator's /healthz and /readyz, until one answers 503 on both: for a minute after the last
     * of them first answers, as the 503 comes only once JOSDK's start has given up waiting for the
     * informer (30 s). Counted from their start instead, a JVM slow to start on a loaded host (29 s in
     * one .ci/run) left too little of the minute. At most [START_SECONDS] more for them to answer.
     */
    private fun observeHealth(operators: List<OperatorProcess>): Map<String, String> {
        val seen = mutableMapOf<String, String>()
        val answered = mutableSetOf<String>()
        val started = System.nanoTime()
        var end = started + Duration.ofSeconds(START_SECONDS + WAIT_SECONDS).toNanos()
        while (System.nanoTime() < end) {
            operators.forEach {
                val healthz = it.status("/healthz")
                seen[it.identity] = "healthz $healthz, readyz ${it.status("/readyz")}"
                if (healthz != null && answered.add(it.identity) && answered.size == operators.size) {
                    end = minOf(end, System.nanoTime() + Duration.ofSeconds(WAIT_SECONDS).toNanos())
                }
            }
            if (seen.values.any { it == BOTH_UNAVAILABLE }) break
            Thread.sleep(POLL_MILLIS)
        }
        return seen
    }

    private companion object {
        const val PODS = 8
        const val BOOSTED_PODS = 2
        const val DECLARED_MILLIS = 200L

        /** Under the fault instance's 500m nodes: a limit above a node's CFS quota is refused by the kernel. */
        const val BOOST_MILLIS = 400L
        const val IN_FLIGHT = 4
        const val DECIDE_MINUTES = 8L
        const val WAIT_SECONDS = 60L
        const val START_SECONDS = 60L
        const val POLL_MILLIS = 1000L
        const val BOTH_UNAVAILABLE = "healthz 503, readyz 503"
        const val CRD = "warmupruns.danki.dev"
    }
}
