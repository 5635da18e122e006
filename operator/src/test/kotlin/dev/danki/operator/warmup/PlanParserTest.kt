package dev.danki.operator.warmup

import dev.danki.operator.boost.BoostAmount
import dev.danki.operator.kube.Keys.Annotations
import io.fabric8.kubernetes.api.model.ContainerPortBuilder
import io.fabric8.kubernetes.api.model.PodSpec
import io.fabric8.kubernetes.api.model.PodSpecBuilder
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.ints.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import java.time.Duration

class PlanParserTest {
    private val parser = PlanParser(FailurePolicy.OPEN)

    private fun spec(vararg ports: Pair<String?, Int>): PodSpec =
        PodSpecBuilder()
            .addNewContainer()
            .withName("app")
            .withPorts(ports.map { (name, port) -> port(name, port) })
            .endContainer()
            .build()

    private fun port(name: String?, number: Int) =
        ContainerPortBuilder().withName(name).withContainerPort(number).build()

    private val podSpec = spec("metrics" to 9090, "http" to 8080)

    private fun parse(vararg annotations: Pair<String, String>) = parser.parse(mapOf(*annotations), podSpec)

    @Test
    fun `no annotations give the published defaults`() {
        val result = parse()
        result.problems.shouldBeEmpty()
        result.plan shouldBe WarmupPlan(port = 8080)
        result.plan!!.rate shouldBe 20.0
        result.plan!!.passRequests shouldBe 100
        result.plan!!.timeout shouldBe Duration.ofMinutes(5)
        result.plan!!.requests shouldBe listOf(RequestSpec("GET", "/"))
        result.plan!!.coldPass shouldBe ColdPass.WARMUP
        result.plan!!.drain shouldBe Duration.ofSeconds(1)
    }

    @Test
    fun `the cold figures come from the warm-up or an open pass, and the drain takes 0s to 10s`() {
        val plan = parse(Annotations.COLD_PASS to "Open", Annotations.DRAIN to "500ms").plan!!
        plan.coldPass shouldBe ColdPass.OPEN
        plan.drain shouldBe Duration.ofMillis(500)
        parse(Annotations.DRAIN to "0s").plan!!.drain shouldBe Duration.ZERO
        parse(Annotations.COLD_PASS to "closed").problems.single().expected shouldBe "warmup or open"
        for (bad in listOf("11s", "1", "-1s")) {
            parse(Annotations.DRAIN to bad).problems.single().expected shouldContain "from 0s to 10s"
        }
    }

    @Test
    fun `port defaults to the first containerPort when none is named http`() {
        parser.parse(emptyMap(), spec("metrics" to 9090, null to 7070)).plan!!.port shouldBe 9090
    }

    @Test
    fun `a pod without containerPorts and no port annotation is a problem`() {
        val result =
            parser.parse(
                emptyMap(),
                PodSpecBuilder()
                    .addNewContainer()
                    .withName("a")
                    .endContainer()
                    .build(),
            )
        result.problems.single().key shouldBe Annotations.PORT
        result.plan shouldBe null
    }

    @ParameterizedTest
    @CsvSource("8081,8081", "metrics,9090", "http,8080")
    fun `port accepts a number or a container port name`(raw: String, port: Int) {
        parse(Annotations.PORT to raw).plan!!.port shouldBe port
    }

    @ParameterizedTest
    @CsvSource("0", "70000", "grpc", "HTTP", "-1", "8080x")
    fun `bad ports are reported with the named ports`(raw: String) {
        val problem = parse(Annotations.PORT to raw).problems.single()
        problem.key shouldBe Annotations.PORT
        problem.value shouldBe raw
        problem.expected shouldContain "named ports: metrics, http"
    }

    @Test
    fun `paths accept semicolons, newlines and JSON bodies`() {
        parse(Annotations.PATHS to "GET /exams/1; post /exams/1/answers {\"answers\":[1]}").plan!!.requests shouldBe
            listOf(
                RequestSpec("GET", "/exams/1"),
                RequestSpec("POST", "/exams/1/answers", "{\"answers\":[1]}"),
            )
        parse(Annotations.PATHS to "GET /a\nPUT /b {\"x\":\"a;b\"}\n").plan!!.requests shouldBe
            listOf(
                RequestSpec("GET", "/a"),
                RequestSpec("PUT", "/b", "{\"x\":\"a;b\"}"),
            )
    }

    @ParameterizedTest
    @CsvSource(
        delimiter = '|',
        value = ["/exams/1", "GET exams/1", "FETCH /a", "POST /a {not json", "''", "GET /a; ;POST"],
    )
    fun `bad paths are reported`(raw: String) {
        val problem = parse(Annotations.PATHS to raw).problems.single()
        problem.key shouldBe Annotations.PATHS
        problem.expected shouldContain "METHOD /path [JSON body]"
    }

    @Test
    fun `rates accept a number with an optional per-second suffix`() {
        val plan = parse(Annotations.RATE to "50/s", Annotations.WARMUP_RATE to "250.5").plan!!
        plan.rate shouldBe 50.0
        plan.warmupRate shouldBe 250.5
    }

    @ParameterizedTest
    @CsvSource("0", "-5", "fast", "20/m", "20000")
    fun `bad rates are reported for both rate keys`(raw: String) {
        parse(Annotations.RATE to raw, Annotations.WARMUP_RATE to raw).problems.map { it.key } shouldBe
            listOf(Annotations.RATE, Annotations.WARMUP_RATE)
    }

    @Test
    fun `request counts are whole numbers in range`() {
        val plan = parse(Annotations.REQUESTS to "200", Annotations.MAX_WARMUP_REQUESTS to "3000").plan!!
        plan.passRequests shouldBe 200
        plan.maxWarmupRequests shouldBe 3000
        parse(Annotations.REQUESTS to "1.5").problems.single().expected shouldContain "whole number"
        parse(Annotations.MAX_WARMUP_REQUESTS to "0").problems.single().key shouldBe Annotations.MAX_WARMUP_REQUESTS
    }

    @Test
    fun `the warm-up closed loop takes a concurrency and a minimum of requests`() {
        val plan = parse(Annotations.WARMUP_CONCURRENCY to "8", Annotations.MIN_WARMUP_REQUESTS to "0").plan!!
        plan.warmupConcurrency shouldBe 8
        plan.minWarmupRequests shouldBe 0
        parse(Annotations.WARMUP_CONCURRENCY to "0").problems.single().key shouldBe Annotations.WARMUP_CONCURRENCY
        parse(Annotations.WARMUP_CONCURRENCY to "65").problems.single().expected shouldContain "from 1 to 64"
        parse(Annotations.MIN_WARMUP_REQUESTS to "-1").problems.single().key shouldBe Annotations.MIN_WARMUP_REQUESTS
    }

    @Test
    fun `a cap below the default minimum lowers the minimum, and a minimum above the cap is named`() {
        parse().plan!!.minWarmupRequests shouldBe WarmupPlan.DEFAULT_MIN_WARMUP_REQUESTS
        parse(Annotations.MAX_WARMUP_REQUESTS to "200").plan!!.minWarmupRequests shouldBe 200
        val problem =
            parse(Annotations.MIN_WARMUP_REQUESTS to "900", Annotations.MAX_WARMUP_REQUESTS to "400").problems.single()
        problem.key shouldBe Annotations.MIN_WARMUP_REQUESTS
        problem.expected shouldBe "at most ${Annotations.MAX_WARMUP_REQUESTS} (400)"
        parse(Annotations.MIN_WARMUP_REQUESTS to "20000").problems.single().expected shouldContain "its default"
    }

    @Test
    fun `jit metrics name a port by number or name, with an optional path`() {
        parse(Annotations.JIT_METRICS to "metrics").plan!!.jitMetrics shouldBe JitMetrics(9090, "/metrics")
        parse(Annotations.JIT_METRICS to "http/actuator/prometheus").plan!!.jitMetrics shouldBe
            JitMetrics(8080, "/actuator/prometheus")
        parse(Annotations.JIT_METRICS to "7000/m").plan!!.jitMetrics shouldBe JitMetrics(7000, "/m")
        parse().plan!!.jitMetrics shouldBe null
    }

    @ParameterizedTest
    @CsvSource("admin", "0", "http/a b", "/metrics", "http/metrics?x=1", "''")
    fun `bad jit metrics are reported`(raw: String) {
        val problem = parse(Annotations.JIT_METRICS to raw).problems.single()
        problem.key shouldBe Annotations.JIT_METRICS
        problem.expected shouldContain "port number or containerPort name"
    }

    @Test
    fun `a value over its size limit is named with its size and the limit, and quoted only in part`() {
        val huge = "GET /a; ".repeat(10_000)
        val problem = parse(Annotations.PATHS to huge).problems.single()
        problem.expected shouldBe "at most 65,536 characters; this value has 80,000"
        problem.toString().length shouldBeLessThan 400
        parse(Annotations.TIMEOUT to "5".repeat(300)).problems.single().expected shouldContain "at most 256 characters"
    }

    @Test
    fun `a plan can hold at most 200 requests and 32 headers`() {
        parse(Annotations.PATHS to "GET /a;".repeat(201)).problems.single().expected shouldBe
            "at most 200 entries; this value has 201"
        val headers = (1..33).joinToString(",", "{", "}") { "\"X-$it\":\"v\"" }
        val problem = parse(Annotations.HEADERS to headers).problems.single()
        problem.expected shouldBe "at most 32 headers; this value has 33"
    }

    @Test
    fun `a header value with a line break is refused, naming the header`() {
        val smuggled = "{\"Authorization\":\"Bearer x\\r\\nX-Evil: 1\"}"
        val problem = parse(Annotations.HEADERS to smuggled).problems.single()
        problem.expected shouldBe "no control characters in header values: Authorization has a line break at position 9"
    }

    @Test
    fun `rates below 1 per second are refused`() {
        parse(Annotations.RATE to "0.5").problems.single().expected shouldContain "from 1 to 10000"
        parse(Annotations.WARMUP_RATE to "0.001").problems.single().key shouldBe Annotations.WARMUP_RATE
    }

    private val withRunners = PlanParser(FailurePolicy.OPEN, runnerEnabled = true)

    @Test
    fun `a script names a ConfigMap of the Deployment's namespace, a key, and a Secret`() {
        val plan =
            withRunners
                .parse(mapOf(Annotations.SCRIPT to "exam-flow/login.js", Annotations.SCRIPT_SECRET to "login"), podSpec)
                .plan!!
        plan.script shouldBe ScriptRef("exam-flow", "login.js", "login")
        val defaultKey = withRunners.parse(mapOf(Annotations.SCRIPT to "exam-flow"), podSpec).plan!!
        defaultKey.script shouldBe ScriptRef("exam-flow")
    }

    @ParameterizedTest
    @CsvSource("kube-system/coredns/Corefile", "Exam_Flow", "exam-flow/", "/flow.js", "''")
    fun `a script that is not a name in the Deployment's namespace is refused`(raw: String) {
        val problem = withRunners.parse(mapOf(Annotations.SCRIPT to raw), podSpec).problems.single()
        problem.key shouldBe Annotations.SCRIPT
        problem.expected shouldContain "never taken from another namespace"
    }

    @Test
    fun `a script without runner pods, or beside paths, or a secret without a script, is refused`() {
        parse(Annotations.SCRIPT to "exam-flow").problems.single().expected shouldContain "runner.enabled=false"
        val both = withRunners.parse(mapOf(Annotations.SCRIPT to "f", Annotations.PATHS to "GET /"), podSpec)
        both.problems.single().key shouldBe Annotations.PATHS
        parse(Annotations.SCRIPT_SECRET to "login").problems.single().expected shouldContain "used only with"
    }

    @Test
    fun `durations use Go style units`() {
        val plan = parse(Annotations.TARGET_P95 to "250ms", Annotations.TIMEOUT to "1m30s").plan!!
        plan.targetP95 shouldBe Duration.ofMillis(250)
        plan.timeout shouldBe Duration.ofSeconds(90)
    }

    @ParameterizedTest
    @CsvSource("5", "5s", "2h", "5 minutes", "0m")
    fun `timeouts outside 10s to 1h or without units are reported`(raw: String) {
        parse(Annotations.TIMEOUT to raw).problems.single().expected shouldContain "from 10s to 1h"
    }

    @ParameterizedTest
    @CsvSource("0ms", "250", "2m")
    fun `bad target P95 values are reported`(raw: String) {
        parse(Annotations.TARGET_P95 to raw).problems.single().key shouldBe Annotations.TARGET_P95
    }

    @Test
    fun `failure policy is parsed and kept even when other keys are bad`() {
        val result = parse(Annotations.FAILURE_POLICY to "closed", Annotations.RATE to "x")
        result.plan shouldBe null
        result.failurePolicy shouldBe FailurePolicy.CLOSED
        val bad = parse(Annotations.FAILURE_POLICY to "sometimes")
        bad.problems.single().toString() shouldBe "danki.dev/failure-policy=\"sometimes\": expected open or closed"
        bad.failurePolicy shouldBe FailurePolicy.OPEN
    }

    @Test
    fun `ungated-pods is report or replace, and a bad value is named with the rest`() {
        parse(Annotations.UNGATED_PODS to "replace").problems shouldBe emptyList()
        parse(Annotations.UNGATED_PODS to "report").problems shouldBe emptyList()
        parse(Annotations.UNGATED_PODS to "evict").problems.single().toString() shouldBe
            "danki.dev/ungated-pods=\"evict\": expected report or replace"
        // MissedGates never evicts on a value it cannot read
        UngatedPods.of(mapOf(Annotations.UNGATED_PODS to "evict"), UngatedPods.REPLACE) shouldBe UngatedPods.REPORT
        UngatedPods.of(emptyMap(), UngatedPods.REPLACE) shouldBe UngatedPods.REPLACE
    }

    @Test
    fun `headers are a JSON object of strings`() {
        parse(Annotations.HEADERS to "{\"Authorization\":\"Bearer x\"}").plan!!.headers shouldBe
            mapOf("Authorization" to "Bearer x")
        listOf("[]", "{\"a\":1}", "Authorization: x", "{\"bad name\":\"x\"}").forEach {
            parse(Annotations.HEADERS to it).problems.single().key shouldBe Annotations.HEADERS
        }
    }

    @Test
    fun `a raw line break inside a header value is named as invalid JSON, with where`() {
        val problem = parse(Annotations.HEADERS to "{\"X-A\":\"a\r\nX-B: b\"}").problems.single()
        problem.expected shouldContain "this value is not valid JSON at column 10"
        problem.expected shouldContain "CTRL-CHAR, code 13"
    }

    @Test
    fun `every bad key is reported at once`() {
        val result =
            parse(
                Annotations.PORT to "nope",
                Annotations.RATE to "0",
                Annotations.TIMEOUT to "forever",
                Annotations.HEADERS to "x",
            )
        result.problems shouldHaveSize 4
    }

    @Test
    fun `a bad danki-dev-warmup value is a problem naming the key, the value and what is expected`() {
        val result = parse(Annotations.WARMUP to "yes")
        result.plan shouldBe null
        result.problems.single().toString() shouldBe "danki.dev/warmup=\"yes\": expected enabled or disabled"
    }

    @Test
    fun `enabled and disabled are both valid values of danki-dev-warmup`() {
        parse(Annotations.WARMUP to "enabled").problems.shouldBeEmpty()
        parse(Annotations.WARMUP to "disabled").problems.shouldBeEmpty()
    }

    @Test
    fun `warmup-cpu is the boost in millicores, and absent means none`() {
        parse().plan!!.warmupCpu shouldBe null
        parse(Annotations.WARMUP_CPU to "off").plan!!.warmupCpu shouldBe null
        parse(Annotations.WARMUP_CPU to "2").plan!!.warmupCpu shouldBe BoostAmount.Fixed(2000)
        parse(Annotations.WARMUP_CPU to "1500m").plan!!.warmupCpu shouldBe BoostAmount.Fixed(1500)
    }

    @Test
    fun `where the chart boosts by default, absent means the JVM's size and off means none`() {
        val byDefault = PlanParser(FailurePolicy.OPEN, cpuBoostByDefault = true)

        fun parsed(vararg extra: Pair<String, String>) =
            byDefault.parse(mapOf(Annotations.WARMUP to "enabled", *extra), podSpec).plan!!.warmupCpu
        parsed() shouldBe BoostAmount.JvmSized
        parsed(Annotations.WARMUP_CPU to "off") shouldBe null
        parsed(Annotations.WARMUP_CPU to "2") shouldBe BoostAmount.Fixed(2000)
    }

    @ParameterizedTest
    @CsvSource("50m", "65", "2Ki", "lots", "-1")
    fun `a warmup-cpu outside 100m to 64 cores, or not a CPU amount, is a problem`(raw: String) {
        val result = parse(Annotations.WARMUP_CPU to raw)
        result.plan shouldBe null
        result.problems.single().toString() shouldBe
            "danki.dev/warmup-cpu=\"$raw\": expected a CPU amount from 100m to 64, e.g. '2', '1.5' or '1500m', " +
            "or 'off' for no boost"
    }
}
