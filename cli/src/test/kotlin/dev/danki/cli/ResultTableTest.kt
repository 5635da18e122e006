package dev.danki.cli

import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test

class ResultTableTest {
    private val warm =
        PodResult(
            "web-a",
            "Succeeded",
            100.0,
            800.0,
            4.0,
            9.0,
            "20.0s",
            "Converged",
            queueWait = "0.1s",
            boost = "200m->2",
        )
    private val slow =
        PodResult("web-b", "Succeeded", 120.0, 900.0, 6.0, 200.0, "1m05s", "MaxRequests", queueWait = "1m02s")
    private val failed = PodResult("web-c", "Failed", reason = "TooManyErrors: 12 of\n300 requests failed")

    @Test
    fun `the Deployment line is the median of the pods and the longest wait and warm-up`() {
        val total = ResultTable.total("deployment/web", listOf(warm, slow, failed))

        total.phase shouldBe "2/3 warmed"
        total.coldP95 shouldBe 850.0
        total.warmP95 shouldBe 104.5
        total.duration shouldBe "1m05s"
        // ordered as durations, not as text ("1m02s" < "9.0s" as strings)
        ResultTable.total("d", listOf(slow, warm.copy(queueWait = "9.0s"))).queueWait shouldBe "1m02s"
    }

    @Test
    fun `the table aligns columns and keeps a tenant's multi-line reason on one line`() {
        val text = ResultTable.render(listOf(warm, failed), null, ResultTable.Format.TABLE)
        val lines = text.lines().filter { it.isNotEmpty() }

        lines[0] shouldBe
            "POD    PHASE      WAITED  BOOST    COLD-P50  COLD-P95  WARM-P50  WARM-P95  DURATION  STOP       REASON"
        lines[1] shouldBe
            "web-a  Succeeded  0.1s    200m->2  100.0     800.0     4.0       9.0       20.0s     Converged"
        lines[2] shouldContain "web-c  Failed     -       -        -"
        lines[2] shouldContain "TooManyErrors: 12 of 300 requests failed"
    }

    @Test
    fun `a table without waits, as danki bench prints it, has no WAITED or BOOST column`() {
        val lines = ResultTable.render(listOf(warm), null, ResultTable.Format.TABLE, waits = false).lines()

        lines[0] shouldBe "POD    PHASE      COLD-P50  COLD-P95  WARM-P50  WARM-P95  DURATION  STOP       REASON"
        lines[1] shouldBe "web-a  Succeeded  100.0     800.0     4.0       9.0       20.0s     Converged"
    }

    @Test
    fun `markdown escapes pipes so a reason cannot break the table`() {
        val text = ResultTable.render(listOf(failed.copy(reason = "a|b")), null, ResultTable.Format.MARKDOWN)

        text.lines()[1] shouldBe "|---|---|---|---|---|---|---|---|---|---|---|"
        text shouldContain "a\\|b"
    }

    @Test
    fun `json carries the figures as numbers`() {
        val total = ResultTable.total("deployment/web", listOf(warm))
        val text = ResultTable.render(listOf(warm), total, ResultTable.Format.JSON)

        text shouldContain "\"warmP95\" : 9.0"
        text shouldContain "\"queueWait\" : \"0.1s\""
        text shouldContain "\"boost\" : \"200m->2\""
        text shouldContain "\"phase\" : \"1/1 warmed\""
    }
}
