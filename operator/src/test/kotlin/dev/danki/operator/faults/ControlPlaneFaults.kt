package dev.danki.operator.faults

import dev.danki.operator.gate.PodGate
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import java.time.Duration

/** Issue 13 faults 2, 3 and 7: the API server, etcd and the node agent restarted while pods are warmed. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class ControlPlaneFaults {
    private val bench = FaultBench("cp")

    @BeforeAll
    fun start() = bench.setUp()

    @AfterAll
    fun stop() = bench.tearDown()

    private fun restartDuringWarmups(name: String, component: String) =
        bench.case(name, "$component restarted during warm-ups", name) { case ->
            bench.deploy(name, PODS)
            case.did("deployed $PODS sample pods")
            val running = bench.awaitRunning(name, 2)
            case.notes["runningAtFault"] = running.size
            case.fault("restarted $component (SIGTERM, same command line) with ${running.size} warm-ups running")
            case.did(ClusterComponent.restart(bench.repo, bench.instance, component))
            bench.awaitDecided(case, name, PODS, Duration.ofMinutes(DECIDE_MINUTES))
        }

    @Test
    @Order(1)
    fun `2 kube-apiserver restarted during warm-ups - every pod warmed, nothing left`() =
        restartDuringWarmups("apiserver", "kube-apiserver")

    @Test
    @Order(2)
    fun `3 etcd restarted during warm-ups - every pod warmed, nothing left`() = restartDuringWarmups("etcd", "etcd")

    @Test
    @Order(3)
    fun `7 node agent restarted during warm-ups - every pod warmed, the earlier runs end ContainerRestarted`() =
        bench.case("node-agent", "node agent restarted during warm-ups (pods stopped, run again)", "agent") { case ->
            bench.deploy("agent", PODS)
            case.did("deployed $PODS sample pods")
            val running = bench.awaitRunning("agent", 2)
            case.notes["runningAtFault"] = running.size
            case.fault("restarted the node agent (SIGTERM: its pods' JVMs stopped, started again with the same IPs)")
            case.did(ClusterComponent.restart(bench.repo, bench.instance, "node-agent"))
            bench.awaitDecided(case, "agent", PODS, Duration.ofMinutes(DECIDE_MINUTES))
            val restarts = bench.cluster.pods("agent").associate { it.metadata.uid to PodGate.restartCount(it) }
            case.notes["restartCounts"] = restarts.values.sorted()
            // the runs that were running when the agent stopped the pods: their containers are gone
            val inFlight = running.map { it.metadata.name }.toSet()
            val earlier = bench.runsOf("agent").filter { it.metadata.name in inFlight }
            case.notes["earlierRuns"] = earlier.map { "${it.metadata.name} ${it.status?.phase}/${it.status?.reason}" }
            val wrong =
                earlier.filterNot {
                    val reason = it.status?.reason
                    val cancelled = it.status?.phase == WarmupRun.PHASE_CANCELLED
                    cancelled && reason == Keys.RunConditions.REASON_CONTAINER_RESTARTED
                }
            if (wrong.isNotEmpty()) {
                case.failures += "earlier runs not Cancelled/ContainerRestarted: ${case.notes["earlierRuns"]}"
            }
            wrong.map { it.metadata.name }.shouldBeEmpty()
            // the fault happened: every container was started again, and counted (docs/local-cluster.md)
            restarts.values.all { it >= 1 } shouldBe true
        }

    private companion object {
        const val PODS = 4
        const val DECIDE_MINUTES = 8L
    }
}
