package dev.danki.operator.warmup

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.Messages
import io.fabric8.kubernetes.api.model.PodSpec
import java.time.Duration

/**
 * Turns a Deployment's `danki.dev/` annotations and its pod spec into a [WarmupPlan]. Every key is
 * checked, and every bad one reported, so a user sees all mistakes in one Event.
 */
class PlanParser(
    private val defaultPolicy: FailurePolicy,
    /** Whether the operator creates runner pods; without them a custom script cannot run. */
    private val runnerEnabled: Boolean = false,
) {
    private val json = ObjectMapper()

    fun parse(annotations: Map<String, String>, podSpec: PodSpec?): PlanResult {
        val fields = Fields(annotations)
        if (WarmupSwitch.of(annotations) == WarmupSwitch.INVALID) {
            val value = annotations.getValue(Annotations.WARMUP)
            fields.problems += ConfigProblem(Annotations.WARMUP, value, SWITCH_EXPECTED)
        }
        val policy = fields.read(Annotations.FAILURE_POLICY, defaultPolicy, POLICY_EXPECTED) { FailurePolicy.parse(it) }
        // read by MissedGates for pods without the gate; checked here so a bad value is named with the rest
        fields.read<UngatedPods?>(Annotations.UNGATED_PODS, null, UngatedPods.EXPECTED) { UngatedPods.parse(it) }
        val port = PodPorts.resolve(annotations[Annotations.PORT], podSpec, fields.problems)
        val bounded = withWarmupBounds(planOf(fields, port ?: 0, policy, podSpec), annotations, fields.problems)
        // a floor the user chose is theirs for every pod; only danki's own default drops for a cache
        val userFloor = annotations.containsKey(Annotations.MIN_WARMUP_REQUESTS)
        val plan = if (userFloor) bounded.copy(minWarmupRequestsFromCache = bounded.minWarmupRequests) else bounded
        ScriptAnnotations.check(plan, annotations, runnerEnabled, fields.problems)
        return PlanResult(plan.takeIf { fields.problems.isEmpty() }, fields.problems.toList(), policy)
    }

    /** The annotations being read, and every problem found in them so far. */
    private class Fields(
        private val annotations: Map<String, String>,
    ) {
        val problems = mutableListOf<ConfigProblem>()

        /** The parsed value of [key], or [default] when it is absent or (noted as a problem) invalid. */
        fun <T> read(key: String, default: T, expected: String, parse: (String) -> T?): T {
            val raw = annotations[key] ?: return default
            val limit = MAX_VALUE_LENGTH[key] ?: MAX_SCALAR_LENGTH
            if (raw.length > limit) {
                val sizes = "at most ${"%,d".format(limit)} characters; this value has ${"%,d".format(raw.length)}"
                problems += ConfigProblem(key, raw, sizes)
                return default
            }
            val parsed =
                try {
                    parse(raw)
                } catch (e: InvalidValue) {
                    problems += ConfigProblem(key, raw, e.expected)
                    return default
                }
            return parsed ?: default.also { problems += ConfigProblem(key, raw, expected) }
        }
    }

    private fun planOf(fields: Fields, port: Int, policy: FailurePolicy, podSpec: PodSpec?) =
        WarmupPlan(
            port = port,
            requests = fields.read(Annotations.PATHS, listOf(RequestSpec("GET", "/")), PATHS_EXPECTED, ::parsePaths),
            rate = fields.read(Annotations.RATE, WarmupPlan.DEFAULT_RATE, RATE_EXPECTED, ::parseRate),
            passRequests =
                fields.read(Annotations.REQUESTS, WarmupPlan.DEFAULT_PASS_REQUESTS, count(MAX_PASS)) {
                    parseCount(it, MAX_PASS)
                },
            warmupRate =
                fields.read(
                    Annotations.WARMUP_RATE,
                    WarmupPlan.DEFAULT_WARMUP_RATE,
                    RATE_EXPECTED,
                    ::parseRate,
                ),
            warmupConcurrency =
                fields.read(
                    Annotations.WARMUP_CONCURRENCY,
                    WarmupPlan.DEFAULT_WARMUP_CONCURRENCY,
                    count(MAX_CONCURRENCY),
                ) { parseCount(it, MAX_CONCURRENCY) },
            minWarmupRequests =
                fields.read(
                    Annotations.MIN_WARMUP_REQUESTS,
                    WarmupPlan.DEFAULT_MIN_WARMUP_REQUESTS,
                    MIN_WARMUP_EXPECTED,
                ) {
                    it.trim().toIntOrNull()?.takeIf { n -> n in 0..MAX_WARMUP }
                },
            maxWarmupRequests =
                fields.read(
                    Annotations.MAX_WARMUP_REQUESTS,
                    WarmupPlan.DEFAULT_MAX_WARMUP_REQUESTS,
                    count(MAX_WARMUP),
                ) { parseCount(it, MAX_WARMUP) },
            jitMetrics =
                fields.read<JitMetrics?>(
                    Annotations.JIT_METRICS,
                    null,
                    JIT_EXPECTED,
                ) { PodPorts.jitMetrics(it, podSpec) },
            targetP95 =
                fields.read<Duration?>(Annotations.TARGET_P95, null, TARGET_EXPECTED) { raw ->
                    DurationFormat.parse(raw)?.takeIf { !it.isZero && it <= MAX_TARGET }
                },
            timeout =
                fields.read(Annotations.TIMEOUT, WarmupPlan.DEFAULT_TIMEOUT, TIMEOUT_EXPECTED) { raw ->
                    DurationFormat.parse(raw)?.takeIf { it >= MIN_TIMEOUT && it <= MAX_TIMEOUT }
                },
            failurePolicy = policy,
            headers = fields.read(Annotations.HEADERS, emptyMap(), HEADERS_EXPECTED, ::parseHeaders),
            acceptRedirects =
                fields.read(Annotations.ACCEPT_REDIRECTS, false, BOOLEAN_EXPECTED) {
                    it.trim().lowercase().toBooleanStrictOrNull()
                },
            script = scriptOf(fields),
            warmupCpuMillis = warmupCpuOf(fields),
        )

    private fun warmupCpuOf(fields: Fields): Long? =
        fields.read<Long?>(Annotations.WARMUP_CPU, null, WARMUP_CPU_EXPECTED) { raw ->
            CpuQuantity.parseMillis(raw)?.takeIf { it in MIN_WARMUP_CPU_MILLIS..MAX_WARMUP_CPU_MILLIS }
        }

    private fun scriptOf(fields: Fields): ScriptRef? {
        val script =
            fields.read<ScriptRef?>(Annotations.SCRIPT, null, ScriptAnnotations.SCRIPT_EXPECTED) {
                ScriptAnnotations.parse(it)
            }
        val secret =
            fields.read(Annotations.SCRIPT_SECRET, null, ScriptAnnotations.SECRET_EXPECTED, ScriptAnnotations::secret)
        return script?.copy(secret = secret)
    }

    /**
     * The minimum of warm-up requests cannot exceed the cap. A cap set below the default minimum lowers
     * the minimum with it; a minimum set above the cap is a mistake to name.
     */
    private fun withWarmupBounds(
        plan: WarmupPlan,
        annotations: Map<String, String>,
        problems: MutableList<ConfigProblem>,
    ): WarmupPlan {
        if (plan.minWarmupRequests <= plan.maxWarmupRequests) return plan
        val minRaw =
            annotations[Annotations.MIN_WARMUP_REQUESTS]
                ?: return plan.copy(minWarmupRequests = plan.maxWarmupRequests)
        val cap = annotations[Annotations.MAX_WARMUP_REQUESTS] ?: "${plan.maxWarmupRequests}, its default"
        problems +=
            ConfigProblem(
                Annotations.MIN_WARMUP_REQUESTS,
                minRaw,
                "at most ${Annotations.MAX_WARMUP_REQUESTS} ($cap)",
            )
        return plan
    }

    private fun parsePaths(raw: String): List<RequestSpec>? {
        val separator = if (raw.contains('\n')) "\n" else ";"
        val entries = raw.split(separator).map { it.trim() }.filter { it.isNotEmpty() }
        if (entries.isEmpty()) return null
        if (entries.size > MAX_PATHS) throw InvalidValue("at most $MAX_PATHS entries; this value has ${entries.size}")
        return entries.map { parseRequest(it) ?: return null }
    }

    private fun parseRequest(entry: String): RequestSpec? {
        val parts = entry.split(Regex("\\s+"), limit = 3)
        if (parts.size < 2) return null
        val method = parts[0].uppercase()
        val path = parts[1]
        if (method !in METHODS || !path.startsWith("/") || path.any { it.isWhitespace() }) return null
        if (path.any { it.isISOControl() }) {
            throw InvalidValue("no control characters in a path: ${Messages.quote(path)}")
        }
        val body = parts.getOrNull(2)?.trim()?.takeIf { it.isNotEmpty() }
        if (body != null && !isJson(body)) return null
        return RequestSpec(method, path, body)
    }

    // runCatching: a parse error here is the answer "not JSON", not a failure to report upward
    private fun isJson(text: String) = runCatching { json.readTree(text) }.getOrNull()?.isMissingNode == false

    private fun parseRate(raw: String): Double? {
        val match = RATE.matchEntire(raw.trim()) ?: return null
        return match.groupValues[1].toDouble().takeIf { it >= MIN_RATE && it <= MAX_RATE }
    }

    private fun parseCount(raw: String, max: Int): Int? = raw.trim().toIntOrNull()?.takeIf { it in 1..max }

    private fun parseHeaders(raw: String): Map<String, String>? {
        val node =
            try {
                json.readTree(raw)
            } catch (e: JsonProcessingException) {
                // say where and why, e.g. a raw line break inside a string, which JSON forbids
                val at = e.location?.let { " at column ${it.columnNr}" }.orEmpty()
                val why = e.originalMessage.lines().first()
                throw InvalidValue("$HEADERS_EXPECTED; this value is not valid JSON$at: $why", e)
            }
        if (node == null || !node.isObject) return null
        val problem =
            if (node.size() > MAX_HEADERS) {
                "at most $MAX_HEADERS headers; this value has ${node.size()}"
            } else {
                node.properties().firstNotNullOfOrNull { (name, value) -> headerProblem(name, value) }
            }
        if (problem != null) throw InvalidValue(problem)
        return node.properties().associateTo(linkedMapOf()) { (name, value) -> name to value.textValue() }
    }

    /** What is wrong with one header, or null; a line break in a value would smuggle in another header. */
    private fun headerProblem(name: String, value: com.fasterxml.jackson.databind.JsonNode): String? {
        if (!HEADER_NAME.matches(name)) return "a header name of token characters: ${Messages.quote(name)}"
        if (!value.isTextual) return "a string value for header $name"
        val text = value.textValue()
        val bad = text.indexOfFirst { it.isISOControl() && it != '\t' }
        if (bad < 0) return null
        val what = if (text[bad] in "\r\n") "a line break" else "a control character"
        return "no control characters in header values: $name has $what at position ${bad + 1}"
    }

    companion object {
        /** Upper bounds that keep a typo (an extra zero) from hammering a pod for an hour. */
        const val MAX_RATE = 10_000.0

        /** A lower bound too: a pass of 100 requests at 0.001/s would hold a warm-up slot for a day. */
        const val MIN_RATE = 1.0

        /** Largest value of any key not listed in [MAX_VALUE_LENGTH]: every scalar fits in far less. */
        const val MAX_SCALAR_LENGTH = 256

        /** Largest values of the list keys, and how many entries they may hold. */
        val MAX_VALUE_LENGTH = mapOf(Annotations.PATHS to 65_536, Annotations.HEADERS to 8_192)
        const val MAX_PATHS = 200
        const val MAX_HEADERS = 32
        const val MAX_PASS = 100_000
        const val MAX_WARMUP = 1_000_000

        /** More in flight than this is a load test, not a warm-up; a pod's JIT gains nothing from it. */
        const val MAX_CONCURRENCY = 64
        val MIN_TIMEOUT: Duration = Duration.ofSeconds(10)
        val MAX_TIMEOUT: Duration = Duration.ofHours(1)
        val MAX_TARGET: Duration = Duration.ofMinutes(1)

        /** A boost is a limit raised for a minute or two: from a tenth of a core to a large node's 64. */
        const val MIN_WARMUP_CPU_MILLIS = 100L
        const val MAX_WARMUP_CPU_MILLIS = 64_000L

        private val METHODS = setOf("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
        private val RATE = Regex("(\\d+(?:\\.\\d+)?)(?:/s)?")
        private val HEADER_NAME = Regex("[!#$%&'*+.^_`|~0-9A-Za-z-]+")

        private const val PATHS_EXPECTED =
            "one or more 'METHOD /path [JSON body]' entries, one per line or separated by ';', " +
                "e.g. 'GET /exams/1; POST /exams/1/answers {\"answer\":\"a\"}'"
        private const val RATE_EXPECTED = "requests per second, a number from 1 to 10000, e.g. '20' or '20/s'"
        private const val TARGET_EXPECTED = "a duration above 0 and at most 1m, e.g. '250ms'"
        private const val TIMEOUT_EXPECTED = "a duration from 10s to 1h, e.g. '5m' or '90s'"
        private const val HEADERS_EXPECTED =
            "a JSON object of header names to string values, e.g. '{\"Authorization\":\"Bearer x\"}'"
        private const val MIN_WARMUP_EXPECTED = "a whole number from 0 to $MAX_WARMUP"
        private const val JIT_EXPECTED =
            "a port number or containerPort name, optionally followed by the metrics path, " +
                "e.g. 'http/metrics', '9090' or 'management/actuator/prometheus' (default path /metrics)"
        private const val WARMUP_CPU_EXPECTED = "a CPU amount from 100m to 64, e.g. '2', '1.5' or '1500m'"
        private const val POLICY_EXPECTED = "open or closed"
        private const val BOOLEAN_EXPECTED = "true or false"
        private const val SWITCH_EXPECTED = "${Annotations.ENABLED} or ${Annotations.DISABLED}"

        private fun count(max: Int) = "a whole number from 1 to $max"
    }
}

/** Thrown by a value parser to say precisely what is wrong, instead of the key's general expectation. */
private class InvalidValue(
    val expected: String,
    cause: Throwable? = null,
) : RuntimeException(expected, cause)

/** A parsed plan, or the problems that kept it from parsing; [failurePolicy] is always known. */
data class PlanResult(
    val plan: WarmupPlan?,
    val problems: List<ConfigProblem>,
    val failurePolicy: FailurePolicy,
)

/** One invalid annotation: which key, what it held, and what danki expected instead. */
data class ConfigProblem(
    val key: String,
    val value: String,
    val expected: String,
) {
    override fun toString() = "$key=\"${Messages.quote(value)}\": expected $expected"
}
