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

/**
 * Issue 13 faults 2, 3 and 7: the API server, etcd, and the nodes' kubelets and containerds restarted
 * while pods are warmed.
 */
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
            bench.awaitDecided(case, name, PODS, Duration.ofMinutes(DECIDE_MINUTES), restartExited = true)
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
    fun `7 kubelets and containerds restarted during warm-ups - every pod warmed, no container restarted`() =
        bench.case(
            "node-runtime",
            "kubelet and containerd restarted during warm-ups (pods keep running)",
            "nodes",
        ) { case ->
            bench.deploy("nodes", PODS)
            case.did("deployed $PODS sample pods")
            val running = bench.awaitRunning("nodes", 2)
            case.notes["runningAtFault"] = running.size
            val nodes = running.mapNotNull { run -> podOf(run)?.spec?.nodeName }.distinct().sorted()
            case.notes["nodes"] = nodes
            case.fault(
                "SIGKILL to containerd, then SIGTERM to the kubelet, of $nodes with ${running.size} warm-ups running",
            )
            for (node in nodes) {
                // the Node danki<instance>-nK runs the components nK-containerd and nK-kubelet (kubelet/node-env.sh)
                val k = node.substringAfterLast('-')
                case.did(ClusterComponent.restart(bench.repo, bench.instance, "$k-containerd", signal = "KILL"))
                case.did(ClusterComponent.restart(bench.repo, bench.instance, "$k-kubelet"))
            }
            bench.awaitDecided(case, "nodes", PODS, Duration.ofMinutes(DECIDE_MINUTES))
            // containerd finds its shims again and the kubelet its pods: no container was started twice
            val restarts = bench.cluster.pods("nodes").associate { it.metadata.name to PodGate.restartCount(it) }
            case.notes["restartCounts"] = restarts.values.sorted()
            if (restarts.values.any { it > 0 }) case.failures += "containers restarted: $restarts"
            restarts.filterValues { it > 0 }.keys.shouldBeEmpty()
        }

    private fun podOf(run: WarmupRun) =
        bench.client
            .pods()
            .inNamespace(bench.ns)
            .withName(run.spec.podName)
            .get()

    private companion object {
        const val PODS = 4
        const val DECIDE_MINUTES = 8L
    }
}
