package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldNotContain
import org.junit.jupiter.api.Test

/** Each rule of [AotProbe], on pods as the kubelet reports them and logs as a JDK 25 JVM writes them. */
class AotProbeTest {
    private val sha = AotFixtures.SHA

    /** What the fake API server was asked, and the log it answers (null: unreadable). */
    private class Logs(
        val log: String?,
    ) : AotProbe.LogReader {
        val asked = mutableListOf<List<Any>>()

        override fun head(namespace: String, pod: String, container: String, limitBytes: Int): String? {
            asked += listOf(namespace, pod, container, limitBytes)
            return log
        }
    }

    private fun pod(report: String?, annotated: Boolean = true, jvmSecond: Boolean = false): Pod {
        val jvm =
            AotFixtures
                .app()
                .addNewEnv()
                .withName("JDK_JAVA_OPTIONS")
                .withValue(AotInjection.OPTION)
                .endEnv()
                .build()
        val sidecar = AotFixtures.app().withName("proxy").build()
        return PodBuilder()
            .withNewMetadata()
            .withName("exam-5d8f-x1")
            .withNamespace("shop")
            .apply { if (annotated) addToAnnotations(Keys.Aot.CACHE_ANNOTATION, sha) }
            .endMetadata()
            .withNewSpec()
            .withContainers(if (jvmSecond) listOf(sidecar, jvm) else listOf(jvm))
            .endSpec()
            .withNewStatus()
            .addToInitContainerStatuses(
                ContainerStatusBuilder()
                    .withName(Keys.Aot.VERIFY_CONTAINER)
                    .withNewState()
                    .withNewTerminated()
                    .withExitCode(0)
                    .withMessage(report)
                    .endTerminated()
                    .endState()
                    .build(),
            ).endStatus()
            .build()
    }

    private fun outcome(pod: Pod, log: String? = "") = AotProbe(Logs(log)).outcomeOf(pod)

    private val refused =
        """
        Picked up JDK_JAVA_OPTIONS: -XX:AOTCache=/var/run/danki/aot/app.aot
        [0.012s][warning][aot] Unable to use AOT cache.
        [0.012s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
        [0.012s][error  ][aot] Loading static archive failed.
        [0.012s][error  ][aot] Unable to map shared spaces
        2026-11-26 21:50:01 INFO  Application - started in 812 ms
        """.trimIndent()

    @Test
    fun `a pod not given a cache has no outcome`() {
        outcome(pod("verified $sha", annotated = false)).shouldBeNull()
    }

    @Test
    fun `a verified cache and a quiet JVM is used`() {
        val logs = Logs("Picked up JDK_JAVA_OPTIONS: -XX:AOTCache=/var/run/danki/aot/app.aot\nstarted\n")

        val outcome = AotProbe(logs).outcomeOf(pod("verified $sha\n"))

        outcome shouldBe AotOutcome(Keys.Aot.USED)
        outcome.toString() shouldBe "used"
        logs.asked shouldBe listOf(listOf("shop", "exam-5d8f-x1", "app", 65_536))
    }

    @Test
    fun `the log read is the JVM container's, found by its option, not the first`() {
        val logs = Logs("")
        AotProbe(logs).outcomeOf(pod("verified $sha", jvmSecond = true))
        logs.asked.single()[2] shouldBe "app"
    }

    @Test
    fun `the verify container's absent report is the reason`() {
        val outcome = outcome(pod("absent: checksum mismatch: got ${"0".repeat(64)}"))

        outcome shouldBe AotOutcome(Keys.Aot.ABSENT, "checksum mismatch: got ${"0".repeat(64)}")
        outcome.toString() shouldBe "absent (checksum mismatch: got ${"0".repeat(64)})"
        outcome(pod("absent: no cache file at ${AotFixtures.FILE}")).toString() shouldBe
            "absent (no cache file at ${AotFixtures.FILE})"
    }

    @Test
    fun `no report from the verify container is absent`() {
        outcome(pod(null)).toString() shouldBe "absent (the cache check left no report)"
        outcome(pod("  \n")).toString() shouldBe "absent (the cache check left no report)"
        val noStatus = PodBuilder(pod(null)).withStatus(null).build()
        outcome(noStatus).toString() shouldBe "absent (the cache check left no report)"
    }

    @Test
    fun `a refusal in the JVM's log is rejected, with its distinct messages but not the generic one`() {
        val outcome = outcome(pod("verified $sha"), refused)

        outcome shouldBe
            AotOutcome(
                Keys.Aot.REJECTED,
                "Unable to use AOT cache.; Loading static archive failed.; Unable to map shared spaces",
            )
        outcome.toString() shouldBe
            "rejected (Unable to use AOT cache.; Loading static archive failed.; Unable to map shared spaces)"
    }

    @Test
    fun `an aot error alone is a refusal too, and repeated messages are said once`() {
        val log =
            "[1.0s][error  ][aot] Loading static archive failed.\r\n" +
                "[1.0s][error][aot] Loading static archive failed.\n"
        outcome(pod("verified $sha"), log).toString() shouldBe "rejected (Loading static archive failed.)"
    }

    @Test
    fun `only the generic line is rejected, with a reason all the same`() {
        val log =
            "[0.1s][error  ][aot] An error has occurred while processing the AOT cache. " +
                "Run with -Xlog:aot for details."
        outcome(pod("verified $sha"), log).toString() shouldBe "rejected (the JVM refused the cache)"
    }

    @Test
    fun `preload and skipping warnings come from a JVM that used its cache`() {
        val log =
            """
            [0.031s][warning][aot] Preload Warning: Verification failed for org.example.Shop
            [0.032s][warning][aot] Skipping jdk/internal/event/Event: Unsupported location
            [0.040s][info   ][gc ] Using G1
            Unable to use AOT cache, says the application about something else
            """.trimIndent()
        outcome(pod("verified $sha"), log) shouldBe AotOutcome.USED
    }

    @Test
    fun `an unreadable log is unknown`() {
        outcome(pod("verified $sha"), null).toString() shouldBe "unknown (the JVM's log could not be read)"
    }

    @Test
    fun `hostile log content is stripped of control characters and cut to 200 characters`() {
        val long = "x".repeat(70_000)
        val log = "[0.1s][error  ][aot] \u001b[31mred\u001b[0m\u202e evil\u0007\n[0.1s][error  ][aot] $long\n"

        val reason = outcome(pod("verified $sha"), log)!!.reason!!

        reason.length shouldBe 200
        reason shouldBe ("[31mred[0m evil; " + long).take(200)
        reason shouldNotContain "\u001b"
        reason shouldNotContain "\u202e"
    }

    @Test
    fun `a report the probe does not know is quoted, cleaned and cut`() {
        val report = "garbage\u0000" + "y".repeat(500)
        val outcome = outcome(pod(report))!!
        outcome.kind shouldBe Keys.Aot.ABSENT
        outcome.reason!!.length shouldBe 200
        outcome.reason!!.startsWith("the cache check reported: garbagey") shouldBe true
    }
}
