package dev.danki.operator.e2e.badinput

import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.Keys.EventReasons
import dev.danki.operator.kube.Keys.GateReasons
import dev.danki.operator.kube.Keys.RunConditions
import dev.danki.operator.warmup.PlanParser

/**
 * The bad-input suite's table: every annotation danki reads, given a wrong type, a value out of range,
 * an empty or huge value, control characters, and typos of key names; plus targets that answer 404,
 * 302, 500 or nothing. A good plan runs beside them as the control.
 */
object BadInputCases {
    /** A valid plan, small enough that the warm-ups of the table finish in seconds on the local cluster. */
    val GOOD =
        mapOf(
            Annotations.WARMUP to Annotations.ENABLED,
            Annotations.PORT to "http",
            Annotations.PATHS to "GET /",
            Annotations.REQUESTS to "20",
            Annotations.RATE to "50",
            Annotations.MAX_WARMUP_REQUESTS to "200",
            Annotations.TIMEOUT to "45s",
        )

    /**
     * A known-bad plan is decided without a warm-up slot: its run has no queue wait and no k6 attempt,
     * which is the check that catches a plan queued behind warm-ups (before, 15-41 s). The time is a
     * bound on top: ~60 pods start at once on a 2-core machine, shared in make test with the other lane's
     * cluster; danki's decision came 12-17 s after ContainersReady there at worst, and the kubelet's own
     * step to Ready up to 4 s later. In one make test run, with the host slower (OperatorE2E 341 s, not
     * 240), 15 decisions came 25.9-29.9 s after ContainersReady: the API writes of a decision wait on a
     * starved API server. make bench-bad-plan measures the decision on a quiet machine.
     */
    private const val INVALID_DECIDED_SECONDS = 40L

    /** [key] set to [value] on an otherwise good plan ([base]): named in an Event, released at once (open). */
    private fun invalid(
        name: String,
        key: String,
        value: String,
        text: String,
        mistake: String = "$key: ${shown(value)}",
        base: Map<String, String> = GOOD,
    ) = BadInputCase(
        name,
        mistake,
        base + (key to value),
        expect =
            Expectation(
                EventReasons.INVALID_CONFIG,
                text,
                RunConditions.REASON_INVALID_CONFIG,
                GateReasons.WARMUP_FAILED_OPEN,
                ready = true,
                maxDecidedSeconds = INVALID_DECIDED_SECONDS,
                takesSlot = false,
            ),
    )

    /** How a value appears in the document: control characters escaped, huge ones summed up. */
    fun shown(value: String): String =
        when {
            value.length > SHOWN_LENGTH -> "${value.take(SHOWN_PREFIX)}… (${"%,d".format(value.length)} characters)"
            else -> escaped(value)
        }

    /** Control characters written out, so a table row stays one line. */
    fun escaped(value: String): String =
        value
            .replace("\r", "\\r")
            .replace("\n", "\\n")
            .replace(Regex("\\p{Cntrl}")) { "\\u%04x".format(it.value[0].code) }

    private const val SHOWN_LENGTH = 60
    private const val SHOWN_PREFIX = 24

    private fun switchCases() =
        listOf(
            invalid("switch-typo", Annotations.WARMUP, "enabeld", "expected enabled or disabled"),
            invalid("switch-empty", Annotations.WARMUP, "", "expected enabled or disabled"),
            invalid("switch-case", Annotations.WARMUP, "Enabled", "expected enabled or disabled"),
            invalid("switch-bool", Annotations.WARMUP, "true", "expected enabled or disabled"),
        )

    private fun portCases() =
        listOf(
            invalid("port-unknown-name", Annotations.PORT, "grpc", "the name of a containerPort"),
            invalid("port-zero", Annotations.PORT, "0", "a port number from 1 to 65535"),
            invalid("port-too-big", Annotations.PORT, "70000", "a port number from 1 to 65535"),
            invalid("port-empty", Annotations.PORT, "", "a port number from 1 to 65535"),
        )

    private fun pathCases() =
        listOf(
            invalid("paths-empty", Annotations.PATHS, "", "'METHOD /path [JSON body]'"),
            invalid("paths-method", Annotations.PATHS, "FETCH /", "'METHOD /path [JSON body]'"),
            invalid("paths-no-slash", Annotations.PATHS, "GET exams", "'METHOD /path [JSON body]'"),
            invalid("paths-body", Annotations.PATHS, "POST / {not json", "'METHOD /path [JSON body]'"),
            invalid("paths-control", Annotations.PATHS, "GET /a\u0001b", "no control characters in a path"),
            invalid(
                "paths-many",
                Annotations.PATHS,
                (1..PlanParser.MAX_PATHS + 1).joinToString("; ") { "GET /p$it" },
                "at most ${PlanParser.MAX_PATHS} entries; this value has ${PlanParser.MAX_PATHS + 1}",
            ),
            invalid(
                "paths-huge",
                Annotations.PATHS,
                "GET /" + "a".repeat(HUGE_PATHS),
                "at most 65,536 characters; this value has ${"%,d".format(HUGE_PATHS + 5)}",
            ),
        )

    private const val HUGE_PATHS = 70_000

    private fun rateCases() =
        listOf(
            invalid("rate-word", Annotations.RATE, "fast", "requests per second, a number from 1 to 10000"),
            invalid("rate-zero", Annotations.RATE, "0", "requests per second, a number from 1 to 10000"),
            invalid("rate-huge", Annotations.RATE, "100000", "requests per second, a number from 1 to 10000"),
            invalid("rate-negative", Annotations.RATE, "-5", "requests per second, a number from 1 to 10000"),
            invalid("rate-unit", Annotations.RATE, "20/min", "requests per second, a number from 1 to 10000"),
            invalid("wrate-fraction", Annotations.WARMUP_RATE, "0.5", "a number from 1 to 10000"),
        )

    private fun countCases() =
        listOf(
            invalid("requests-zero", Annotations.REQUESTS, "0", "a whole number from 1 to 100000"),
            invalid("requests-huge", Annotations.REQUESTS, "999999999", "a whole number from 1 to 100000"),
            invalid("requests-word", Annotations.REQUESTS, "ten", "a whole number from 1 to 100000"),
            invalid("conc-too-many", Annotations.WARMUP_CONCURRENCY, "65", "a whole number from 1 to 64"),
            invalid("conc-negative", Annotations.WARMUP_CONCURRENCY, "-1", "a whole number from 1 to 64"),
            invalid("minwarm-negative", Annotations.MIN_WARMUP_REQUESTS, "-1", "a whole number from 0 to 1000000"),
            invalid(
                "minwarm-over-cap",
                Annotations.MIN_WARMUP_REQUESTS,
                "500",
                "at most ${Annotations.MAX_WARMUP_REQUESTS} (200)",
            ),
            invalid("maxwarm-zero", Annotations.MAX_WARMUP_REQUESTS, "0", "a whole number from 1 to 1000000"),
        )

    private fun durationCases() =
        listOf(
            invalid("p95-zero", Annotations.TARGET_P95, "0ms", "a duration above 0 and at most 1m"),
            invalid("p95-too-long", Annotations.TARGET_P95, "2m", "a duration above 0 and at most 1m"),
            invalid("p95-word", Annotations.TARGET_P95, "fast", "a duration above 0 and at most 1m"),
            invalid("timeout-short", Annotations.TIMEOUT, "5s", "a duration from 10s to 1h"),
            invalid("timeout-long", Annotations.TIMEOUT, "2h", "a duration from 10s to 1h"),
            invalid("timeout-word", Annotations.TIMEOUT, "forever", "a duration from 10s to 1h"),
            invalid(
                "timeout-huge",
                Annotations.TIMEOUT,
                "9".repeat(HUGE_SCALAR),
                "at most 256 characters; this value has $HUGE_SCALAR",
            ),
        )

    private const val HUGE_SCALAR = 300

    private fun otherKeyCases() =
        listOf(
            invalid("policy-word", Annotations.FAILURE_POLICY, "sometimes", "open or closed"),
            invalid("ungated-evict", Annotations.UNGATED_PODS, "evict", "report or replace"),
            invalid("jit-unknown-port", Annotations.JIT_METRICS, "nope/metrics", "a port number or containerPort name"),
            invalid("redirects-yes", Annotations.ACCEPT_REDIRECTS, "yes", "true or false"),
            invalid(
                "script-path",
                Annotations.SCRIPT,
                "../other-namespace/flow",
                "the name of a ConfigMap in the Deployment's own namespace",
                mistake = "danki.dev/script: ../other-namespace/flow (a path, not a ConfigMap name)",
                base = GOOD - Annotations.PATHS,
            ),
            invalid("secret-alone", Annotations.SCRIPT_SECRET, "tokens", "used only with ${Annotations.SCRIPT}"),
        )

    private fun headerCases() =
        listOf(
            invalid(
                "headers-crlf",
                Annotations.HEADERS,
                "{\"X-A\":\"a\\r\\nX-B: b\"}",
                "no control characters in header values: X-A has a line break at position 2",
                mistake = "danki.dev/headers: a value with an escaped CR LF (JSON \\r\\n), smuggling a second header",
            ),
            invalid(
                "headers-raw-crlf",
                Annotations.HEADERS,
                "{\"X-A\":\"a\r\nX-B: b\"}",
                "not valid JSON",
                mistake = "danki.dev/headers: a raw CR LF inside a JSON string",
            ),
            invalid("headers-not-json", Annotations.HEADERS, "Authorization: x", "a JSON object of header names"),
            invalid("headers-bad-name", Annotations.HEADERS, "{\"bad name\":\"x\"}", "a header name of token"),
            invalid("headers-number", Annotations.HEADERS, "{\"X-N\":1}", "a string value for header X-N"),
            invalid(
                "headers-many",
                Annotations.HEADERS,
                (1..PlanParser.MAX_HEADERS + 1).joinToString(",", "{", "}") { "\"X-$it\":\"v\"" },
                "at most ${PlanParser.MAX_HEADERS} headers; this value has ${PlanParser.MAX_HEADERS + 1}",
            ),
        )

    private fun keyTypoCases() =
        listOf(
            BadInputCase(
                "typo-switch",
                "danki.dev/warmpu: enabled (the opt-in key misspelled)",
                mapOf("danki.dev/warmpu" to Annotations.ENABLED, Annotations.PORT to "http"),
                gated = false,
                expect =
                    Expectation(
                        EventReasons.UNKNOWN_ANNOTATION,
                        "danki.dev/warmpu; did you mean ${Annotations.WARMUP}?",
                        runReason = null,
                        gateReason = null,
                        ready = true,
                    ),
            ),
            typo("typo-timeout", "danki.dev/timout", "30s", Annotations.TIMEOUT),
            typo("typo-paths", "danki.dev/path", "GET /", Annotations.PATHS),
            typo("typo-policy", "danki.dev/failure-polcy", "closed", Annotations.FAILURE_POLICY),
            BadInputCase(
                "on-template",
                "danki.dev/paths on the pod template instead of the Deployment",
                GOOD,
                templateAnnotations = mapOf(Annotations.PATHS to "GET /elsewhere"),
                expect =
                    Expectation(
                        EventReasons.UNKNOWN_ANNOTATION,
                        "is on the pod template",
                        RunConditions.REASON_SUCCEEDED,
                        GateReasons.WARMED_UP,
                        ready = true,
                    ),
            ),
        )

    /** A misspelled optional key: named in an Event, and the plan runs with that key's default. */
    private fun typo(name: String, key: String, value: String, meant: String) =
        BadInputCase(
            name,
            "$key: $value (for $meant)",
            GOOD + (key to value),
            expect =
                Expectation(
                    EventReasons.UNKNOWN_ANNOTATION,
                    "$key; did you mean $meant?",
                    RunConditions.REASON_SUCCEEDED,
                    GateReasons.WARMED_UP,
                    ready = true,
                ),
        )

    /** A valid plan whose target fails every request: retried until the timeout, then released (open). */
    private fun failingTarget(name: String, mistake: String, target: Map<String, String>, text: String) =
        BadInputCase(
            name,
            mistake,
            GOOD,
            target = target,
            expect =
                Expectation(
                    EventReasons.WARMUP_FAILED,
                    text,
                    TOO_MANY,
                    GateReasons.WARMUP_FAILED_OPEN,
                    ready = true,
                ),
        )

    private fun targetCases() =
        listOf(
            failingTarget("target-404", "every path answers 404", mapOf("STATUS" to "404"), "404 from GET /"),
            failingTarget(
                "target-302",
                "302 with no Location",
                mapOf("STATUS" to "302"),
                "302 from GET / (redirects are not followed",
            ),
            failingTarget("target-500", "every request answers 500", mapOf("STATUS" to "500"), "500 from GET /"),
            failingTarget(
                "target-hang",
                "the target never answers",
                mapOf("SCHEDULE" to "hang"),
                "no answer (k6 error 1000) from GET /",
            ),
            BadInputCase(
                "closed-500",
                "answers 500, danki.dev/failure-policy: closed",
                GOOD + (Annotations.FAILURE_POLICY to "closed"),
                target = mapOf("STATUS" to "500"),
                expect =
                    Expectation(
                        EventReasons.WARMUP_FAILED,
                        "500 from GET /",
                        TOO_MANY,
                        GateReasons.WARMUP_FAILED,
                        ready = false,
                    ),
            ),
            BadInputCase(
                "closed-invalid",
                "danki.dev/rate: fast, danki.dev/failure-policy: closed",
                GOOD + (Annotations.RATE to "fast") + (Annotations.FAILURE_POLICY to "closed"),
                expect =
                    Expectation(
                        EventReasons.INVALID_CONFIG,
                        "${Annotations.RATE}=\"fast\"",
                        RunConditions.REASON_INVALID_CONFIG,
                        GateReasons.WARMUP_FAILED,
                        ready = false,
                    ),
            ),
        )

    private const val TOO_MANY = RunConditions.REASON_TOO_MANY_ERRORS

    /**
     * The control shows that a good plan is warmed beside the bad ones. Its own timeout is roomier than
     * [GOOD]'s: in one make test run, its 240 requests on a node starting ~20 pods were still running at
     * 45 s, and the control failed for the machine, not for danki.
     */
    private val control =
        BadInputCase(
            "control",
            "(none: the control, a good plan)",
            GOOD + (Annotations.TIMEOUT to "3m"),
            expect =
                Expectation(EventReasons.WARMED_UP, null, RunConditions.REASON_SUCCEEDED, GateReasons.WARMED_UP, true),
        )

    val ALL: List<BadInputCase> =
        listOf(control) + switchCases() + portCases() + pathCases() + rateCases() + countCases() +
            durationCases() + otherKeyCases() + headerCases() + keyTypoCases() + targetCases()
}
