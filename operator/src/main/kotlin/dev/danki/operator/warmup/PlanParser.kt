package dev.danki.operator.warmup

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.boost.BoostAmount
import dev.danki.operator.boost.CpuQuantity
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import dev.danki.operator.kube.Messages
import io.fabric8.kubernetes.api.model.ContainerPort
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
    /**
     * Whether a Deployment without `danki.dev/warmup-cpu` is boosted by [BoostAmount.JvmSized] (chart
     * values `cpuBoost.enabled` and `cpuBoost.byDefault`); `off` opts one out.
     */
    private val cpuBoostByDefault: Boolean = false,
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
        val plan = withWarmupBounds(planOf(fields, port ?: 0, policy, podSpec), fields)
        ScriptAnnotations.check(plan, annotations, runnerEnabled, fields.problems)
        return PlanResult(plan.takeIf { fields.problems.isEmpty() }, fields.problems.toList(), policy)
    }

    /** The annotations being read, and every problem found in them so far. */
    private class Fields(
        val annotations: Map<String, String>,
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

        /** A whole number of [key] within [range]. */
        fun count(key: String, default: Int, range: IntRange): Int =
            read(key, default, "a whole number from ${range.first} to ${range.last}") { raw ->
                raw.trim().toIntOrNull()?.takeIf { it in range }
            }
    }

    private fun planOf(fields: Fields, port: Int, policy: FailurePolicy, podSpec: PodSpec?) =
        WarmupPlan(
            port = port,
            requests = fields.read(Annotations.PATHS, listOf(RequestSpec("GET", "/")), PATHS_EXPECTED, ::parsePaths),
            rate = fields.read(Annotations.RATE, WarmupPlan.DEFAULT_RATE, RATE_EXPECTED, ::parseRate),
            passRequests = fields.count(Annotations.REQUESTS, WarmupPlan.DEFAULT_PASS_REQUESTS, 1..MAX_PASS),
            coldPass = fields.read(Annotations.COLD_PASS, ColdPass.WARMUP, COLD_PASS_EXPECTED) { ColdPass.parse(it) },
            drain =
                fields.read(Annotations.DRAIN, WarmupPlan.DEFAULT_DRAIN, DRAIN_EXPECTED) { raw ->
                    DurationFormat.parse(raw)?.takeIf { it <= MAX_DRAIN }
                },
            warmupRate =
                fields.read(
                    Annotations.WARMUP_RATE,
                    WarmupPlan.DEFAULT_WARMUP_RATE,
                    RATE_EXPECTED,
                    ::parseRate,
                ),
            warmupConcurrency =
                fields.count(Annotations.WARMUP_CONCURRENCY, WarmupPlan.DEFAULT_WARMUP_CONCURRENCY, 1..MAX_CONCURRENCY),
            minWarmupRequests =
                fields.count(Annotations.MIN_WARMUP_REQUESTS, WarmupPlan.DEFAULT_MIN_WARMUP_REQUESTS, 0..MAX_WARMUP),
            maxWarmupRequests =
                fields.count(Annotations.MAX_WARMUP_REQUESTS, WarmupPlan.DEFAULT_MAX_WARMUP_REQUESTS, 1..MAX_WARMUP),
            jitMetrics = fields.read(Annotations.JIT_METRICS, null, JIT_EXPECTED) { PodPorts.jitMetrics(it, podSpec) },
            targetP95 =
                fields.read(Annotations.TARGET_P95, null, TARGET_EXPECTED) { raw ->
                    DurationFormat.parse(raw)?.takeIf { !it.isZero && it <= MAX_TARGET }
                },
            timeout =
                fields.read(Annotations.TIMEOUT, WarmupPlan.DEFAULT_TIMEOUT, TIMEOUT_EXPECTED) { raw ->
                    DurationFormat.parse(raw)?.takeIf { it in MIN_TIMEOUT..MAX_TIMEOUT }
                },
            failurePolicy = policy,
            headers = fields.read(Annotations.HEADERS, emptyMap(), HEADERS_EXPECTED, ::parseHeaders),
            acceptRedirects =
                fields.read(Annotations.ACCEPT_REDIRECTS, false, BOOLEAN_EXPECTED) {
                    it.trim().lowercase().toBooleanStrictOrNull()
                },
            script = scriptOf(fields),
            warmupCpu = warmupCpuOf(fields),
        )

    /** The boost the Deployment asks for, `off` (none), or the default when it says nothing. */
    private fun warmupCpuOf(fields: Fields): BoostAmount? {
        val default: BoostAmount? = BoostAmount.JvmSized.takeIf { cpuBoostByDefault }
        val off = BoostAmount.Fixed(0)
        val amount =
            fields.read(Annotations.WARMUP_CPU, default, WARMUP_CPU_EXPECTED) { raw ->
                if (raw.trim() == Annotations.WARMUP_CPU_OFF) {
                    off
                } else {
                    CpuQuantity
                        .parseMillis(raw)
                        ?.takeIf { it in MIN_WARMUP_CPU_MILLIS..MAX_WARMUP_CPU_MILLIS }
                        ?.let { BoostAmount.Fixed(it) }
                }
            }
        return amount.takeUnless { it == off }
    }

    private fun scriptOf(fields: Fields): ScriptRef? {
        val script = fields.read(Annotations.SCRIPT, null, ScriptAnnotations.SCRIPT_EXPECTED, ScriptAnnotations::parse)
        val secret =
            fields.read(Annotations.SCRIPT_SECRET, null, ScriptAnnotations.SECRET_EXPECTED, ScriptAnnotations::secret)
        return script?.copy(secret = secret)
    }

    /**
     * The minimum of warm-up requests cannot exceed the cap. A cap set below the default minimum lowers
     * the minimum with it; a minimum set above the cap is a mistake to name.
     */
    private fun withWarmupBounds(plan: WarmupPlan, fields: Fields): WarmupPlan {
        val minRaw = fields.annotations[Annotations.MIN_WARMUP_REQUESTS]
        if (minRaw == null) return plan.copy(minWarmupRequests = minOf(plan.minWarmupRequests, plan.maxWarmupRequests))
        if (plan.minWarmupRequests > plan.maxWarmupRequests) {
            val cap = fields.annotations[Annotations.MAX_WARMUP_REQUESTS] ?: "${plan.maxWarmupRequests}, its default"
            val expected = "at most ${Annotations.MAX_WARMUP_REQUESTS} ($cap)"
            fields.problems += ConfigProblem(Annotations.MIN_WARMUP_REQUESTS, minRaw, expected)
        }
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
    private fun headerProblem(name: String, value: JsonNode): String? {
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

        /** A drain is for queued compiles, which take well under a second: ten is generous. */
        val MAX_DRAIN: Duration = Duration.ofSeconds(10)

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
        private const val COLD_PASS_EXPECTED = "warmup or open"
        private const val DRAIN_EXPECTED = "a duration from 0s to 10s, e.g. '1s' or '500ms'"
        private const val HEADERS_EXPECTED =
            "a JSON object of header names to string values, e.g. '{\"Authorization\":\"Bearer x\"}'"
        private const val JIT_EXPECTED =
            "a port number or containerPort name, optionally followed by the metrics path, " +
                "e.g. 'http/metrics', '9090' or 'management/actuator/prometheus' (default path /metrics)"
        private const val WARMUP_CPU_EXPECTED =
            "a CPU amount from 100m to 64, e.g. '2', '1.5' or '1500m', or 'off' for no boost"
        private const val POLICY_EXPECTED = "open or closed"
        private const val BOOLEAN_EXPECTED = "true or false"
        private const val SWITCH_EXPECTED = "${Annotations.ENABLED} or ${Annotations.DISABLED}"
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

/** The custom-flow annotations: `danki.dev/script` and `danki.dev/script-secret`. */
object ScriptAnnotations {
    /** `<configmap>[/<key>]`: a name in the Deployment's own namespace; there is no way to name another. */
    fun parse(raw: String): ScriptRef? {
        val parts = raw.trim().split('/')
        if (parts.size > 2 || !OBJECT_NAME.matches(parts[0])) return null
        val key = parts.getOrNull(1) ?: return ScriptRef(parts[0])
        return ScriptRef(parts[0], key.takeIf(CONFIG_MAP_KEY::matches) ?: return null)
    }

    /** A script needs runner pods, and replaces the built-in plan's requests rather than mixing with them. */
    fun check(
        plan: WarmupPlan,
        annotations: Map<String, String>,
        runnerEnabled: Boolean,
        problems: MutableList<ConfigProblem>,
    ) {
        val raw = annotations[Annotations.SCRIPT]
        if (raw != null && plan.script != null && !runnerEnabled) {
            problems += ConfigProblem(Annotations.SCRIPT, raw, RUNNER_DISABLED)
        }
        if (plan.script == null && annotations.containsKey(Annotations.SCRIPT_SECRET) && raw == null) {
            val secret = annotations.getValue(Annotations.SCRIPT_SECRET)
            problems += ConfigProblem(Annotations.SCRIPT_SECRET, secret, SECRET_ALONE)
        }
        if (plan.script == null) return
        for (key in listOf(Annotations.PATHS, Annotations.HEADERS)) {
            annotations[key]?.let {
                problems +=
                    ConfigProblem(key, it, "not set together with ${Annotations.SCRIPT}: a flow sends its own requests")
            }
        }
    }

    /** A Secret's name, or null when it is not a valid object name. */
    fun secret(raw: String): String? = raw.trim().takeIf(OBJECT_NAME::matches)

    /** A Kubernetes object name (DNS-1123 subdomain), and a ConfigMap key. */
    private val OBJECT_NAME = Regex("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
    private val CONFIG_MAP_KEY = Regex("[-._a-zA-Z0-9]{1,253}")
    const val SCRIPT_EXPECTED =
        "the name of a ConfigMap in the Deployment's own namespace, optionally /<key> (default key flow.js), " +
            "e.g. 'exam-flow' or 'exam-flow/login.js'; a script is never taken from another namespace"
    const val SECRET_EXPECTED = "the name of a Secret in the Deployment's own namespace"
    private const val SECRET_ALONE = "used only with ${Annotations.SCRIPT}: the Secret is for a custom flow"
    private const val RUNNER_DISABLED =
        "custom scripts run in runner pods, which this operator does not create (chart value runner.enabled=false)"
}

/** The ports a plan names: where k6 sends requests, and where the pod's JVM metrics page is. */
object PodPorts {
    const val MAX_PORT = 65_535
    const val DEFAULT_PORT_NAME = "http"

    /** The warm-up port: the annotation's number or name, else the port named http, else the first. */
    fun resolve(raw: String?, podSpec: PodSpec?, problems: MutableList<ConfigProblem>): Int? {
        val ports = podSpec?.containers.orEmpty().flatMap { it.ports.orEmpty() }
        if (raw == null) {
            val port = (ports.firstOrNull { it.name == DEFAULT_PORT_NAME } ?: ports.firstOrNull())?.containerPort
            if (port == null) {
                problems += ConfigProblem(Annotations.PORT, "", "a port: the pod declares no containerPort")
            }
            return port
        }
        val port = portOf(raw.trim(), ports)
        if (port == null) problems += ConfigProblem(Annotations.PORT, raw, PORT_EXPECTED + namesOf(ports))
        return port
    }

    /** A port number, or the number of the containerPort of that name; null when it is neither. */
    private fun portOf(raw: String, ports: List<ContainerPort>): Int? {
        val number = raw.toIntOrNull()
        return when {
            number != null -> number.takeIf { it in 1..MAX_PORT }
            PORT_NAME.matches(raw) -> ports.firstOrNull { it.name == raw }?.containerPort
            else -> null
        }
    }

    /** `<port or name>[/path]`: where the pod's JVM metrics page is. */
    fun jitMetrics(raw: String, podSpec: PodSpec?): JitMetrics? {
        val text = raw.trim()
        val portPart = text.substringBefore('/')
        val path = text.substring(portPart.length).ifEmpty { JitMetrics.DEFAULT_PATH }
        if (!METRICS_PATH.matches(path)) return null
        val port = portOf(portPart, podSpec?.containers.orEmpty().flatMap { it.ports.orEmpty() }) ?: return null
        return JitMetrics(port, path)
    }

    private fun namesOf(ports: List<ContainerPort>): String {
        val names = ports.mapNotNull { it.name }
        return if (names.isEmpty()) " (the pod names no port)" else " (named ports: ${names.joinToString(", ")})"
    }

    private val PORT_NAME = Regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?")

    /** An absolute path of URL-safe characters, no query: the scrape URL is built from it as is. */
    private val METRICS_PATH = Regex("/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*")
    private const val PORT_EXPECTED = "a port number from 1 to 65535 or the name of a containerPort"
}

/**
 * What danki does about a pod of an opted-in Deployment that was admitted without the gate (the webhook
 * was unreachable, or could not tell the pod's Deployment in time): `danki.dev/ungated-pods`.
 */
enum class UngatedPods(
    val value: String,
) {
    /** A `PodNotGated` Event and the metric; the pod keeps serving as it is. */
    REPORT("report"),

    /**
     * Reported, then evicted (the Eviction API, so PodDisruptionBudgets hold), so that its ReplicaSet
     * creates a replacement that the webhook gates and danki warms. Only a pod that has not served for
     * long is evicted: one that has is warm from its own traffic, and a replacement would start cold.
     */
    REPLACE("replace"),
    ;

    companion object {
        const val EXPECTED = "report or replace"

        fun parse(raw: String): UngatedPods? = entries.firstOrNull { it.value == raw.trim().lowercase() }

        /**
         * A Deployment's choice from its [annotations], else [default]. A value that does not parse (named
         * by the plan's InvalidWarmupConfig Event) reports only: never evict on a setting danki cannot read.
         */
        fun of(annotations: Map<String, String>, default: UngatedPods): UngatedPods {
            val raw = annotations[Annotations.UNGATED_PODS] ?: return default
            return parse(raw) ?: REPORT
        }
    }
}

/**
 * Names every `danki.dev/` annotation danki would silently ignore: an unknown key on the Deployment
 * (a typo such as `danki.dev/warmpu` would leave its pods cold without a word), with the closest
 * known key, and danki's keys written on the pod template, where danki does not read them.
 */
object UnknownAnnotations {
    /** A suggestion is made only this close (edits); farther, a guess would mislead more than help. */
    private const val MAX_DISTANCE = 3

    /** One message per misplaced or unknown key, in key order. */
    fun of(deployment: Map<String, String>?, template: Map<String, String>?): List<String> {
        val unknown =
            dankiKeys(deployment)
                .filter { it !in Annotations.ON_DEPLOYMENT }
                .map { key -> "unknown annotation ${Messages.quote(key)}${suggestion(key)}" }
        val misplaced =
            dankiKeys(template).map { key ->
                "annotation ${Messages.quote(key)} is on the pod template, where danki does not read it; " +
                    "put it on the Deployment's own metadata.annotations"
            }
        return unknown + misplaced
    }

    private fun dankiKeys(annotations: Map<String, String>?) =
        annotations
            .orEmpty()
            .keys
            .filter { it.startsWith(Keys.PREFIX) }
            .sorted()

    private fun suggestion(key: String): String {
        val closest = Annotations.ON_DEPLOYMENT.minBy { distance(key, it) }
        return if (distance(key, closest) <= MAX_DISTANCE) "; did you mean $closest?" else ""
    }

    /** Levenshtein distance (insert, delete, replace), on the name after the prefix; keys are short. */
    internal fun distance(a: String, b: String): Int {
        val x = a.removePrefix(Keys.PREFIX).take(MAX_COMPARED)
        val y = b.removePrefix(Keys.PREFIX).take(MAX_COMPARED)
        var previous = IntArray(y.length + 1) { it }
        for (i in 1..x.length) {
            val current = IntArray(y.length + 1)
            current[0] = i
            for (j in 1..y.length) {
                val replace = previous[j - 1] + if (x[i - 1] == y[j - 1]) 0 else 1
                current[j] = minOf(previous[j] + 1, current[j - 1] + 1, replace)
            }
            previous = current
        }
        return previous[y.length]
    }

    /** A key name is at most 63 characters after its prefix; a longer (invalid) one is cut for the comparison. */
    private const val MAX_COMPARED = 63
}
