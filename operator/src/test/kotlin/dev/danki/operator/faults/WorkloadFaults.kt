package dev.danki.operator.faults

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import io.fabric8.kubernetes.api.model.apps.Deployment
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import java.time.Duration

/** Issue 13 faults 4, 5, 6 and 8: what users and targets do to a warm-up in flight. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class WorkloadFaults {
    private val bench = FaultBench("wl")

    @BeforeAll
    fun start() = bench.setUp()

    @AfterAll
    fun stop() = bench.tearDown()

    @Test
    @Order(1)
    fun `4 a pod deleted while k6 runs against it - its replacement warmed, nothing left of it`() =
        bench.case("pod-deleted", "a pod deleted in the middle of its warm-up", "deleted") { case ->
            bench.deploy("deleted", 2)
            case.did("deployed 2 sample pods")
            val run = bench.awaitRunning("deleted", 1).first()
            case.fault("deleted pod ${run.spec.podName} while its WarmupRun was Running (k6 against it)")
            bench.client
                .pods()
                .inNamespace(bench.ns)
                .withName(run.spec.podName)
                .delete()
            bench.awaitDecided(case, "deleted", 2, Duration.ofMinutes(DECIDE_MINUTES))
        }

    @Test
    @Order(2)
    fun `5 a Deployment opted out while k6 runs - the pod released WarmupDisabled, k6 gone`() =
        bench.case("opted-out", "a Deployment opted out (warmup: disabled) while its k6 runs", "optout") { case ->
            bench.deploy("optout", 1)
            case.did("deployed 1 sample pod, its template gated already (so the opt-out does not roll it)")
            val run = bench.awaitRunning("optout", 1).first()
            case.fault("annotated the Deployment danki.dev/warmup=disabled while run ${run.metadata.name} was Running")
            bench.client
                .apps()
                .deployments()
                .inNamespace(bench.ns)
                .withName("optout")
                .edit { d: Deployment ->
                    d.apply { metadata.annotations[Annotations.WARMUP] = Annotations.DISABLED }
                }
            bench.awaitDecided(case, "optout", 1, Duration.ofMinutes(1), Keys.GateReasons.WARMUP_DISABLED)
        }

    @Test
    @Order(3)
    fun `6 a target that hangs, then answers 500, then recovers ends warmed`() =
        bench.case("hang-500-recover", "the target hangs 15 s, answers 500 for 15 s, then recovers", "flaky") { case ->
            val annotations = bench.warmup + (Annotations.PATHS to "GET /") + (Annotations.TIMEOUT to "3m")
            case.fault("deployed 1 http-status pod with SCHEDULE=$SCHEDULE (timed from its start), timeout 3m")
            bench.deploy("flaky", 1, annotations, "danki/http-status:dev", mapOf("SCHEDULE" to SCHEDULE))
            bench.awaitDecided(case, "flaky", 1, Duration.ofMinutes(DECIDE_MINUTES))
        }

    @Test
    @Order(4)
    fun `8 a Deployment scaled 0 to 8 to 0 to 8 - the last 8 warmed, nothing left of the others`() =
        bench.case("scale-0-8-0-8", "a Deployment scaled 0 -> 8 -> 0 -> 8 in quick succession", "churn") { case ->
            bench.deploy("churn", 0)
            case.fault("scaled 0 -> 8")
            bench.scale("churn", SCALE)
            Thread.sleep(PAUSE_MILLIS)
            case.did("after ${PAUSE_MILLIS / MILLIS} s: 8 -> 0")
            bench.scale("churn", 0)
            Thread.sleep(PAUSE_MILLIS)
            case.did("after ${PAUSE_MILLIS / MILLIS} s: 0 -> 8")
            bench.scale("churn", SCALE)
            bench.awaitDecided(case, "churn", SCALE, Duration.ofMinutes(DECIDE_MINUTES))
        }

    private companion object {
        const val SCHEDULE = "hang:15,500:15,200"
        const val SCALE = 8
        const val PAUSE_MILLIS = 5_000L
        const val MILLIS = 1000
        const val DECIDE_MINUTES = 8L
    }
}
