package dev.danki.cli.it

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.LatencyPercentiles
import dev.danki.operator.kube.WarmupHistory
import dev.danki.operator.kube.WarmupHistoryEntry
import dev.danki.operator.kube.WarmupHistorySpec
import dev.danki.operator.kube.WarmupHistoryStatus
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * `danki report` against a real kube-apiserver: the current pods' WarmupRuns, then the Deployment's
 * WarmupHistory, and a report that still prints when the history is missing or may not be read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportIT {
    private val admin = CliApiServer.client()
    private val mapper = ObjectMapper()

    @BeforeAll
    fun crds() = CliApiServer.installCrds()

    @Test
    fun `report prints the runs' figures as a table, markdown and JSON`() {
        val ns = namespaceWithWeb()
        succeededRun(ns, "web-abc")

        val (table, markdown, json) = reportInEveryForm(ns)

        table.code shouldBe 0
        table.out shouldContain "web-abc"
        table.out shouldContain "812.3"
        table.out shouldContain "Converged"
        markdown.out shouldContain
            "| web-abc | Succeeded | 0.4s | 200m->1 | 210.5 | 812.3 | 4.5 | 9.8 | 31.2s | Converged |"
        json.out shouldContain "\"warmP95\" : 9.75"
        mapper.readTree(json.out)["deployment"]["phase"].asText() shouldBe "1/1 warmed"
    }

    @Test
    fun `report prints the Deployment's history below the current pods`() {
        val ns = namespaceWithWeb()
        succeededRun(ns, "web-abc")
        history(ns, "web")

        val (table, markdown, json) = reportInEveryForm(ns)

        withClue(table) {
            table.code shouldBe 0
            table.out shouldContain "history (last 2 of 9 results, newest first)"
            table.out shouldContain "web-new  Succeeded      640.0     7.5       1500      Converged  28.4s"
            table.out shouldContain "web-old  TooManyErrors  -         -         300       Timeout    2m00s"
            table.out shouldContain "slowest duration 28.4s, median duration 28.4s (over 1 succeeded)"
            table.err shouldNotContain "history"
        }
        markdown.out shouldContain "### history (last 2 of 9 results, newest first)"
        markdown.out shouldContain "| 2026-11-24T10:02:11Z | web-new | Succeeded | 640.0 | 7.5 | 1500 | Converged |"
        val history = mapper.readTree(json.out)["history"]
        history["recorded"].asLong() shouldBe 9
        history["entries"].size() shouldBe 2
        history["entries"][1]["reason"].asText() shouldBe "TooManyErrors"
        history["durations"]["slowest"].asText() shouldBe "28.4s"
        mapper.readTree(json.out)["pods"][0]["pod"].asText() shouldBe "web-abc"
    }

    @Test
    fun `without a history object report says none is recorded yet and json has a null history`() {
        val ns = namespaceWithWeb()

        val (table, markdown, json) = reportInEveryForm(ns)

        withClue(table) {
            table.code shouldBe 0
            table.out shouldNotContain "history"
            table.err shouldContain "no warm-up history yet for deployment/web"
        }
        markdown.out shouldContain "no warm-up history yet for deployment/web"
        json.code shouldBe 0
        mapper.readTree(json.out)["history"].isNull shouldBe true
    }

    @Test
    fun `a chart older than WarmupHistory is named and the report still prints`() {
        val ns = namespaceWithWeb()
        succeededRun(ns, "web-abc")
        CliApiServer.uninstallCrds(listOf("warmuphistories"))
        try {
            val run = report(ns)

            withClue(run) {
                run.code shouldBe 0
                run.out shouldContain "web-abc"
                run.err shouldContain "the WarmupHistory CRD (warmuphistories.danki.dev) is not installed"
            }
        } finally {
            CliApiServer.installCrds()
        }
    }

    @Test
    fun `a user who may not read histories still gets the report, and the right to ask for`() {
        val ns = namespaceWithWeb()
        succeededRun(ns, "web-abc")
        history(ns, "web")
        // bob may do what report needed before the history, and no more
        Fixtures.grant(
            admin,
            ns,
            "bob",
            Fixtures.rule("apps", "get", "deployments"),
            Fixtures.rule("danki.dev", "list", "warmupruns"),
        )

        val run = CliRun.of("report", "deployment/web", "-n", ns) { CliApiServer.client(impersonate = "bob") }

        withClue(run) {
            run.code shouldBe 0
            run.out shouldContain "web-abc"
            run.out shouldNotContain "web-new"
            run.err shouldContain "RBAC denies get warmuphistories.danki.dev in namespace $ns"
        }
    }

    /** A fresh namespace with the Deployment `web` in it. */
    private fun namespaceWithWeb(): String {
        val ns = Fixtures.namespace(admin)
        admin.resource(Fixtures.deployment(ns, "web")).create()
        return ns
    }

    private fun report(ns: String, vararg output: String) = CliRun.of("report", "deployment/web", "-n", ns, *output)

    /** The table, markdown and JSON reports, in that order. */
    private fun reportInEveryForm(ns: String): Triple<CliRun, CliRun, CliRun> =
        Triple(report(ns), report(ns, "-o", "markdown"), report(ns, "-o", "json"))

    private fun succeededRun(ns: String, pod: String) {
        val runs = admin.resources(WarmupRun::class.java).inNamespace(ns)
        val run =
            WarmupRun().apply {
                metadata = ObjectMetaBuilder().withName(pod).withNamespace(ns).build()
                spec =
                    WarmupRunSpec().apply {
                        podName = pod
                        deployment = "web"
                    }
            }
        runs.resource(run).create()
        val status =
            WarmupRunStatus().apply {
                phase = WarmupRun.PHASE_SUCCEEDED
                cold = percentiles(210.5, 812.25)
                warm = percentiles(4.5, 9.75)
                duration = "31.2s"
                stopReason = "Converged"
                queueWait = "0.4s"
                cpuBoost =
                    CpuBoostStatus().apply {
                        state = CpuBoostStatus.RESTORED
                        summary = "200m->1"
                    }
            }
        runs.withName(pod).editStatus { it.apply { this.status = status } }
    }

    /** A WarmupHistory as the operator writes it: created, then its status (a subresource) set. */
    private fun history(ns: String, deployment: String) {
        val histories = admin.resources(WarmupHistory::class.java).inNamespace(ns)
        val created =
            histories
                .resource(
                    WarmupHistory().apply {
                        metadata = ObjectMetaBuilder().withName(deployment).withNamespace(ns).build()
                        spec = WarmupHistorySpec().apply { this.deployment = deployment }
                    },
                ).create()
        created.status =
            WarmupHistoryStatus().apply {
                retention = 20
                recorded = 9
                entries = listOf(newest(), failed())
            }
        histories.resource(created).updateStatus()
    }

    private fun newest() =
        WarmupHistoryEntry().apply {
            run = "web-new"
            pod = "web-new"
            phase = WarmupRun.PHASE_SUCCEEDED
            reason = "Succeeded"
            stopReason = "Converged"
            completionTime = "2026-11-24T10:02:11Z"
            duration = "28.4s"
            requests = 1500
            cold = percentiles(150.0, 640.0)
            warm = percentiles(3.0, 7.5)
        }

    private fun failed() =
        WarmupHistoryEntry().apply {
            run = "web-old"
            pod = "web-old"
            phase = WarmupRun.PHASE_FAILED
            reason = "TooManyErrors"
            stopReason = "Timeout"
            completionTime = "2026-11-23T09:00:00Z"
            duration = "2m00s"
            requests = 300
        }

    private fun percentiles(p50: Double, p95: Double) =
        LatencyPercentiles().apply {
            this.p50 = p50
            this.p95 = p95
        }
}
