package dev.danki.operator.it

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.Operator
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.WarmupRun
import io.fabric8.kubernetes.client.dsl.base.PatchContext
import io.fabric8.kubernetes.client.dsl.base.PatchType
import io.kotest.matchers.ints.shouldBeLessThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.time.Instant

/**
 * One tenant must not hurt the others or the operator: a Deployment whose pods never answer holds at
 * most its share of the warm-up slots, and a huge annotation, however often it changes, is refused
 * precisely without growing the operator's heap.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantIT {
    private val space = ItNamespace("danki-it-tenant")
    private val json = ObjectMapper()
    private val silent = TestTarget(hang = true)
    private val quick = TestTarget(200)
    private lateinit var operator: Operator

    @BeforeAll
    fun start() {
        // 4 slots, half of them for one Deployment: the default share
        operator = space.operator { copy(concurrency = 4) }
    }

    @AfterAll
    fun stop() {
        operator.stop()
        silent.close()
        quick.close()
    }

    @Test
    fun `a tenant whose 4 pods never answer holds 2 of 4 slots, and another Deployment is warmed at once`() {
        val slow =
            mapOf(Annotations.WARMUP to "enabled", Annotations.TIMEOUT to "2m", Annotations.RATE to "1") +
                (Annotations.PORT to "${silent.port}")
        space.create(Fixtures.deployment(space.ns, "slow", slow))
        (1..4).forEach { space.createReadyPod("slow", "slow-abc123-x$it", silent.port) }
        eventually(Duration.ofSeconds(30)) {
            val phases = (1..4).map { space.run("slow-abc123-x$it")?.status?.phase }
            phases.count { it == WarmupRun.PHASE_RUNNING } shouldBe 2
            phases.count { it == WarmupRun.PHASE_PENDING } shouldBe 2
        }
        val fast =
            mapOf(
                Annotations.WARMUP to "enabled",
                Annotations.PORT to "${quick.port}",
                Annotations.REQUESTS to "20",
                Annotations.RATE to "50",
                Annotations.MAX_WARMUP_REQUESTS to "200",
            )
        space.create(Fixtures.deployment(space.ns, "fast", fast))
        val started = Instant.now()
        space.createReadyPod("fast", "fast-abc123-x1", quick.port)
        eventually(Duration.ofSeconds(40)) {
            space.run("fast-abc123-x1")!!.status.phase shouldBe WarmupRun.PHASE_SUCCEEDED
        }
        // the slow pods hold their slots for 2 minutes: a FIFO pool would have kept "fast" waiting that long
        Duration.between(started, Instant.now()).seconds shouldBeLessThan 40L
        (1..4).forEach {
            space.client
                .pods()
                .inNamespace(space.ns)
                .withName("slow-abc123-x$it")
                .delete()
        }
    }

    @Test
    fun `a 250 KiB annotation is refused naming its size and the limit, and 1,000 changes of it leave the heap flat`() {
        val huge = "GET /exams/1; ".repeat(250 * 1024 / 14)
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.PATHS to huge)
        space.create(Fixtures.deployment(space.ns, "huge", annotations))
        eventually(Duration.ofSeconds(20)) {
            val warning = space.events("huge").single { it.reason == Keys.EventReasons.INVALID_CONFIG }
            warning.message shouldContain "danki.dev/paths=\"GET /exams/1; "
            warning.message shouldContain "at most 65,536 characters; this value has ${"%,d".format(huge.length)}"
            warning.message.length shouldBeLessThan 1_025
        }
        val before = usedHeapAfterGc()
        val deployment =
            space.client
                .apps()
                .deployments()
                .inNamespace(space.ns)
                .withName("huge")
        repeat(1_000) { n ->
            // a different value each time: each is a new message for the warn-once memory
            val patch = mapOf("metadata" to mapOf("annotations" to mapOf(Annotations.PATHS to "GET /x$n; $huge")))
            deployment.patch(PatchContext.of(PatchType.JSON_MERGE), json.writeValueAsString(patch))
        }
        eventually(Duration.ofSeconds(60)) {
            space.events("huge").any { it.message.contains("GET /x999; ") } shouldBe true
        }
        val grown = usedHeapAfterGc() - before
        // before messages were bounded, each remembered message held the whole 250 KiB value: 250 MB
        grown shouldBeLessThan 64L * 1024 * 1024
    }

    @Test
    fun `a script named in another namespace is refused, naming the rule`() {
        val annotations = mapOf(Annotations.WARMUP to "enabled", Annotations.SCRIPT to "kube-system/coredns/Corefile")
        space.create(Fixtures.deployment(space.ns, "elsewhere", annotations))
        eventually(Duration.ofSeconds(20)) {
            space.events("elsewhere").single { it.reason == Keys.EventReasons.INVALID_CONFIG }.message shouldContain
                "a script is never taken from another namespace"
        }
    }

    private fun usedHeapAfterGc(): Long {
        repeat(3) {
            System.gc()
            Thread.sleep(200)
        }
        val runtime = Runtime.getRuntime()
        return runtime.totalMemory() - runtime.freeMemory()
    }
}
