package dev.danki.operator.config

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.warmup.Executables
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.UngatedPods
import io.fabric8.kubernetes.api.model.ResourceRequirements
import java.io.File
import java.lang.management.ManagementFactory
import java.net.InetAddress
import java.time.Duration

/** Thrown when the environment holds invalid settings; the message lists every problem. */
class ConfigException(
    val problems: List<String>,
) : IllegalArgumentException("invalid operator configuration:\n" + problems.joinToString("\n") { "  - $it" })

/**
 * Reads [OperatorConfig] from environment variables, collecting every problem before failing,
 * so a user fixes them all in one go.
 */
@Suppress("TooManyFunctions") // one small parser per kind of setting, each with its own message
class ConfigLoader(
    private val env: Map<String, String>,
    private val namespaceFile: File = File(IN_CLUSTER_NAMESPACE_FILE),
) {
    private val problems = mutableListOf<String>()

    fun load(): OperatorConfig {
        val defaults = OperatorConfig()
        val injection = enumValue("DANKI_GATE_INJECTION", defaults.gateInjection)
        val config =
            OperatorConfig(
                watchNamespaces = namespaces(),
                concurrency = int("DANKI_CONCURRENCY", defaults.concurrency, 1..MAX_CONCURRENCY),
                defaultFailurePolicy = enumValue("DANKI_DEFAULT_FAILURE_POLICY", defaults.defaultFailurePolicy),
                httpPort = int("DANKI_HTTP_PORT", defaults.httpPort, 1..MAX_PORT),
                leaderElection = bool("DANKI_LEADER_ELECTION", true),
                leaseName = dnsName("DANKI_LEASE_NAME", defaults.leaseName),
                leaseNamespace = dnsName("DANKI_LEASE_NAMESPACE", defaultLeaseNamespace()),
                identity = value("POD_NAME") ?: defaultIdentity(),
                k6Binary = k6Binary(defaults.k6Binary),
                k6Script = script(defaults.k6Script),
                logFormat = enumValue("DANKI_LOG_FORMAT", defaults.logFormat),
                maxErrorRatio = ratio("DANKI_MAX_ERROR_RATIO", defaults.maxErrorRatio),
                reconcileWorkers = int("DANKI_RECONCILE_WORKERS", defaults.reconcileWorkers, 1..MAX_CONCURRENCY),
                queueCapacity = int("DANKI_QUEUE_CAPACITY", defaults.queueCapacity, 1..Int.MAX_VALUE),
                // `auto` (null): each node's cap from its CPU
                nodeConcurrency =
                    if (value(NODE_CONCURRENCY) == AUTO) {
                        null
                    } else {
                        intOrNull(
                            NODE_CONCURRENCY,
                            1..MAX_CONCURRENCY,
                            "$AUTO or a whole number from 1 to $MAX_CONCURRENCY",
                        )
                    },
                historyRetention = int("DANKI_HISTORY_RETENTION", defaults.historyRetention, 0..MAX_HISTORY_RETENTION),
                allowHostNetwork = bool("DANKI_ALLOW_HOST_NETWORK", false),
                cpuBoost = bool("DANKI_CPU_BOOST", false),
                cpuBoostByDefault = bool("DANKI_CPU_BOOST_BY_DEFAULT", false),
                cpuBoostActiveProcessors = bool("DANKI_CPU_BOOST_ACTIVE_PROCESSOR_COUNT", false),
                runnerImage = value("DANKI_RUNNER_IMAGE"),
                runnerConcurrency = int("DANKI_RUNNER_CONCURRENCY", defaults.runnerConcurrency, 1..MAX_RUNNERS),
                runnerResources = runnerResources(),
                // a share of 0 would never serve a tenant: above 0 and at most 1
                deploymentShare = ratio("DANKI_DEPLOYMENT_SHARE", defaults.deploymentShare, aboveZero = true),
                namespaceShare = ratio("DANKI_NAMESPACE_SHARE", defaults.namespaceShare, aboveZero = true),
                gateInjection = injection,
                ungatedPods = enumValue("DANKI_UNGATED_PODS", defaults.ungatedPods),
                webhook = if (injection == GateInjection.WEBHOOK) webhook(defaultLeaseNamespace()) else null,
                aot = aot(injection),
            )
        checkLogLevel()
        if (problems.isNotEmpty()) throw ConfigException(problems.toList())
        return config
    }

    private fun value(name: String): String? = env[name]?.trim()?.takeIf { it.isNotEmpty() }

    private fun namespaces(): List<String> {
        val raw = value("DANKI_WATCH_NAMESPACES") ?: return emptyList()
        val names = raw.split(',').map { it.trim() }.filter { it.isNotEmpty() }
        names.filterNot { DNS_LABEL.matches(it) }.forEach {
            problems += "DANKI_WATCH_NAMESPACES=$raw: '$it' is not a valid namespace name"
        }
        return names.distinct()
    }

    private fun int(name: String, default: Int, range: IntRange): Int = intOrNull(name, range) ?: default

    /** The whole number in [name], or null when it is unset or (a problem) not one in [range]. */
    private fun intOrNull(
        name: String,
        range: IntRange,
        expected: String = "a whole number from ${range.first} to ${range.last}",
    ): Int? {
        val raw = value(name) ?: return null
        val parsed = raw.toIntOrNull()?.takeIf { it in range }
        if (parsed == null) problems += "$name=$raw: expected $expected"
        return parsed
    }

    private fun ratio(name: String, default: Double, aboveZero: Boolean = false): Double {
        val raw = value(name) ?: return default
        val parsed = raw.toDoubleOrNull()
        val low = if (aboveZero) "above 0" else "from 0"
        val inRange = parsed != null && parsed <= 1.0 && (parsed > 0.0 || (!aboveZero && parsed == 0.0))
        if (!inRange) {
            problems += "$name=$raw: expected a number $low to 1"
            return default
        }
        return parsed!!
    }

    private fun bool(name: String, default: Boolean): Boolean {
        val raw = value(name) ?: return default
        return raw.lowercase().toBooleanStrictOrNull()
            ?: default.also { problems += "$name=$raw: expected true or false" }
    }

    /** One of [E]'s entries by name, in any case. */
    private inline fun <reified E : Enum<E>> enumValue(name: String, default: E): E {
        val raw = value(name) ?: return default
        return enumValues<E>().firstOrNull { it.name.equals(raw, ignoreCase = true) } ?: default.also {
            problems += "$name=$raw: expected one of " + enumValues<E>().joinToString(", ") { it.name.lowercase() }
        }
    }

    private fun dnsName(name: String, default: String): String {
        val raw = value(name) ?: return default
        if (!DNS_SUBDOMAIN.matches(raw)) problems += "$name=$raw: expected a lower-case DNS name"
        return raw
    }

    /** Runner resources as Kubernetes JSON, checked now rather than at the first runner pod. */
    private fun runnerResources(): String? {
        val raw = value("DANKI_RUNNER_RESOURCES") ?: return null
        if (runCatching { ObjectMapper().readValue(raw, ResourceRequirements::class.java) }.isFailure) {
            val example = "{\"requests\":{\"cpu\":\"100m\"}}"
            problems += "DANKI_RUNNER_RESOURCES=$raw: expected container resources as JSON, e.g. $example"
        }
        return raw
    }

    /** The k6 binary must resolve now: a missing one would otherwise fail every warm-up, one by one. */
    private fun k6Binary(default: String): String {
        val binary = value("DANKI_K6_BINARY") ?: default
        if (Executables.find(binary, env["PATH"]) == null) {
            val where = if (binary.contains('/')) "" else " on PATH"
            problems += "DANKI_K6_BINARY=$binary: no executable file$where"
        }
        return binary
    }

    private fun script(default: String): String {
        val path = value("DANKI_K6_SCRIPT") ?: default
        if (!File(path).isFile) problems += "DANKI_K6_SCRIPT=$path: no such file"
        return path
    }

    private fun checkLogLevel() {
        val raw = value("DANKI_LOG_LEVEL") ?: return
        if (raw.uppercase() !in LOG_LEVELS) {
            problems += "DANKI_LOG_LEVEL=$raw: expected one of ${LOG_LEVELS.joinToString(", ")}"
        }
    }

    /** `DANKI_WEBHOOK_*`, read only with gate injection `webhook`. */
    private fun webhook(namespace: String): WebhookSettings {
        val defaults =
            WebhookSettings(
                serviceName = "",
                namespace = namespace,
                configurationName = "",
                secretName = null,
                certDir = null,
            )
        val certDir = value("DANKI_WEBHOOK_CERT_DIR")
        val secret = value("DANKI_WEBHOOK_SECRET")
        if (certDir == null && secret == null) {
            problems += "DANKI_GATE_INJECTION=webhook: set DANKI_WEBHOOK_SECRET (own certificates) or " +
                "DANKI_WEBHOOK_CERT_DIR (cert-manager's)"
        }
        val certValidity = duration("DANKI_WEBHOOK_CERT_VALIDITY", defaults.certValidity)
        val caValidity = duration("DANKI_WEBHOOK_CA_VALIDITY", defaults.caValidity)
        // a serving certificate outliving its CA would be refused before its own renewal
        if (caValidity < certValidity) {
            problems += "DANKI_WEBHOOK_CA_VALIDITY must be at least DANKI_WEBHOOK_CERT_VALIDITY"
        }
        val port = int("DANKI_WEBHOOK_PORT", defaults.port, 1..MAX_PORT)
        val timeout =
            intOrNull(
                "DANKI_WEBHOOK_TIMEOUT_SECONDS",
                1..MAX_WEBHOOK_TIMEOUT_SECONDS,
                "a whole number from 1 to $MAX_WEBHOOK_TIMEOUT_SECONDS (the webhook configuration's timeoutSeconds)",
            )
        return defaults.copy(
            port = port,
            serviceName = required("DANKI_WEBHOOK_SERVICE"),
            configurationName = required("DANKI_WEBHOOK_CONFIGURATION"),
            secretName = secret.takeIf { certDir == null },
            certDir = certDir,
            certValidity = certValidity,
            caValidity = caValidity,
            timeout = timeout?.let { Duration.ofSeconds(it.toLong()) } ?: defaults.timeout,
            stripTemplateGates = bool("DANKI_WEBHOOK_STRIP_TEMPLATE_GATES", defaults.stripTemplateGates),
        )
    }

    private fun required(name: String): String {
        val found = value(name)
        if (found == null) problems += "$name: required with DANKI_GATE_INJECTION=webhook"
        return found.orEmpty()
    }

    private fun duration(name: String, default: Duration): Duration {
        val raw = value(name) ?: return default
        val match = DURATION.matchEntire(raw)
        val amount = match?.groupValues?.get(1)?.toLongOrNull()
        if (match == null || amount == null || amount < 1) {
            problems += "$name=$raw: expected a whole number with a unit s, m, h or d, e.g. 2160h"
            return default
        }
        return when (match.groupValues[2]) {
            "s" -> Duration.ofSeconds(amount)
            "m" -> Duration.ofMinutes(amount)
            "h" -> Duration.ofHours(amount)
            else -> Duration.ofDays(amount)
        }
    }

    /** `DANKI_AOT_*`: on only with the webhook and the runner image, whose containers seal and check caches. */
    private fun aot(injection: GateInjection): AotSettings? {
        if (!bool("DANKI_AOT_ENABLED", false)) return null
        val defaults = AotSettings()
        if (injection != GateInjection.WEBHOOK) {
            problems +=
                "DANKI_AOT_ENABLED=true needs DANKI_GATE_INJECTION=webhook: caches are given to pods at admission"
        }
        if (value("DANKI_RUNNER_IMAGE") == null) {
            problems += "DANKI_AOT_ENABLED=true needs DANKI_RUNNER_IMAGE: danki's image seals and checks each cache"
        }
        val modes = value("DANKI_AOT_ACCESS_MODES")?.split(',')?.map { it.trim() }?.filter { it.isNotEmpty() }
        modes?.filterNot { it in ACCESS_MODES }?.forEach {
            problems += "DANKI_AOT_ACCESS_MODES: $it is not one of ${ACCESS_MODES.joinToString(", ")}"
        }
        if (modes != null && "ReadWriteMany" !in modes) {
            // a pod on a node that cannot mount its Deployment's claim would never start
            problems += "DANKI_AOT_ACCESS_MODES=${modes.joinToString(",")}: must include ReadWriteMany, since " +
                "every node that runs a pod of the Deployment mounts the claim"
        }
        val size = value("DANKI_AOT_STORAGE_SIZE")
        if (size != null && !QUANTITY.matches(size)) {
            problems += "DANKI_AOT_STORAGE_SIZE=$size: expected a storage quantity, e.g. 1Gi"
        }
        val minutes = intOrNull("DANKI_AOT_TRAINING_TIMEOUT_MINUTES", 1..MAX_TRAINING_MINUTES)
        return AotSettings(
            storageClassName = value("DANKI_AOT_STORAGE_CLASS")?.let { dnsName("DANKI_AOT_STORAGE_CLASS", it) },
            accessModes = modes?.takeIf { it.isNotEmpty() } ?: defaults.accessModes,
            storageSize = size ?: defaults.storageSize,
            trainingTimeout = minutes?.let { Duration.ofMinutes(it.toLong()) } ?: defaults.trainingTimeout,
        )
    }

    private fun defaultLeaseNamespace(): String =
        value("POD_NAMESPACE")
            ?: namespaceFile
                .takeIf { it.isFile }
                ?.readText()
                ?.trim()
                ?.takeIf { it.isNotEmpty() }
            ?: "default"

    private fun defaultIdentity(): String {
        val host = runCatching { InetAddress.getLocalHost().hostName }.getOrDefault("localhost")
        return "$host-${ManagementFactory.getRuntimeMXBean().pid}"
    }

    private companion object {
        const val IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
        const val MAX_PORT = 65_535

        /** More parallel k6 processes than this would starve a small operator pod of CPU. */
        const val MAX_CONCURRENCY = 256
        const val NODE_CONCURRENCY = "DANKI_NODE_CONCURRENCY"
        const val AUTO = "auto"

        /** Runner pods are cheap to schedule but each is a pod: a thousand at once is a mistake. */
        const val MAX_RUNNERS = 1_000
        const val MAX_HISTORY_RETENTION = 500
        const val MAX_WEBHOOK_TIMEOUT_SECONDS = 30
        const val MAX_TRAINING_MINUTES = 120
        val LOG_LEVELS = listOf("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF")
        val ACCESS_MODES = setOf("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
        val DNS_LABEL = Regex("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
        val DNS_SUBDOMAIN = Regex("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")

        /** A storage size as a claim states it: a whole number with a binary or decimal suffix. */
        val QUANTITY = Regex("[1-9][0-9]{0,8}(Ki|Mi|Gi|Ti|k|M|G|T)?")
        val DURATION = Regex("([0-9]{1,9})([smhd])")
    }
}
