package dev.danki.operator.config

import dev.danki.operator.warmup.Executables
import dev.danki.operator.warmup.FailurePolicy
import dev.danki.operator.warmup.UngatedPods
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.collections.shouldHaveSize
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File

class ConfigLoaderTest {
    @TempDir
    lateinit var dir: File

    private fun script() = File(dir, "warmup.js").apply { writeText("//") }.path

    /** A directory holding an executable `k6`, to put on PATH. */
    private fun binDir() =
        File(dir, "bin").apply {
            mkdirs()
            File(this, "k6").apply { writeText("#!/bin/sh\n") }.setExecutable(true)
        }

    private fun base() = mapOf("DANKI_K6_SCRIPT" to script(), "PATH" to "/nowhere:${binDir().path}")

    private fun load(vararg env: Pair<String, String>): OperatorConfig {
        val namespaceFile = File(dir, "no-namespace-file")
        return ConfigLoader(base() + env.toMap(), namespaceFile).load()
    }

    @Test
    fun `defaults apply when nothing is set`() {
        val config = load()
        config.watchNamespaces shouldBe emptyList()
        config.concurrency shouldBe 16
        config.nodeConcurrency shouldBe null // auto: each node's cap from its CPU
        config.defaultFailurePolicy shouldBe FailurePolicy.OPEN
        config.httpPort shouldBe 8080
        config.leaderElection shouldBe true
        config.leaseName shouldBe "danki-operator"
        config.leaseNamespace shouldBe "default"
        config.logFormat shouldBe OperatorConfig.LogFormat.JSON
    }

    @Test
    fun `every variable is read`() {
        val config =
            load(
                "DANKI_WATCH_NAMESPACES" to "a, b,a",
                "DANKI_CONCURRENCY" to "8",
                "DANKI_DEFAULT_FAILURE_POLICY" to "closed",
                "DANKI_HTTP_PORT" to "9000",
                "DANKI_LEADER_ELECTION" to "false",
                "DANKI_LEASE_NAME" to "lease",
                "POD_NAMESPACE" to "ops",
                "POD_NAME" to "danki-0",
                "DANKI_K6_BINARY" to File(binDir(), "k6").path,
                "DANKI_LOG_FORMAT" to "text",
                "DANKI_LOG_LEVEL" to "debug",
            )
        config.watchNamespaces shouldBe listOf("a", "b")
        config.concurrency shouldBe 8
        config.defaultFailurePolicy shouldBe FailurePolicy.CLOSED
        config.httpPort shouldBe 9000
        config.leaderElection shouldBe false
        config.leaseName shouldBe "lease"
        config.leaseNamespace shouldBe "ops"
        config.identity shouldBe "danki-0"
        config.k6Binary shouldBe File(binDir(), "k6").path
        config.logFormat shouldBe OperatorConfig.LogFormat.TEXT
    }

    @Test
    fun `lease namespace falls back to the in-cluster namespace file`() {
        val file = File(dir, "namespace").apply { writeText("danki-system\n") }
        ConfigLoader(base(), file).load().leaseNamespace shouldBe "danki-system"
    }

    @Test
    fun `every problem is reported in one message`() {
        val error =
            shouldThrow<ConfigException> {
                ConfigLoader(
                    mapOf(
                        "DANKI_WATCH_NAMESPACES" to "ok,Not_Valid",
                        "DANKI_CONCURRENCY" to "0",
                        "DANKI_DEFAULT_FAILURE_POLICY" to "maybe",
                        "DANKI_HTTP_PORT" to "http",
                        "DANKI_LEADER_ELECTION" to "yes",
                        "DANKI_LOG_FORMAT" to "xml",
                        "DANKI_LOG_LEVEL" to "loud",
                        "DANKI_K6_SCRIPT" to "/no/such/script.js",
                        "DANKI_K6_BINARY" to "k6",
                        "PATH" to "/nowhere",
                    ),
                    File(dir, "none"),
                ).load()
            }
        error.problems shouldHaveSize 9
        error.message!! shouldContain "DANKI_K6_BINARY=k6: no executable file on PATH"
        error.message!! shouldContain "DANKI_CONCURRENCY=0: expected a whole number from 1 to 256"
        error.message!! shouldContain "DANKI_DEFAULT_FAILURE_POLICY=maybe: expected one of open, closed"
        error.message!! shouldContain "DANKI_K6_SCRIPT=/no/such/script.js: no such file"
        error.message!! shouldContain "'Not_Valid' is not a valid namespace name"
    }

    @Test
    fun `the node cap is auto or one number for every node`() {
        load("DANKI_NODE_CONCURRENCY" to "auto").nodeConcurrency shouldBe null
        load("DANKI_NODE_CONCURRENCY" to "3").nodeConcurrency shouldBe 3
        listOf("0", "257", "Auto", "two").forEach { bad ->
            shouldThrow<ConfigException> { load("DANKI_NODE_CONCURRENCY" to bad) }.message!! shouldContain
                "DANKI_NODE_CONCURRENCY=$bad: expected auto or a whole number from 1 to 256"
        }
    }

    @Test
    fun `the k6 binary is found on PATH or by its path, and must be executable`() {
        load().k6Binary shouldBe "k6"
        val notExecutable = File(dir, "k6-data").apply { writeText("") }.path
        shouldThrow<ConfigException> { load("DANKI_K6_BINARY" to notExecutable) }.problems shouldBe
            listOf("DANKI_K6_BINARY=$notExecutable: no executable file")
        shouldThrow<ConfigException> { load("DANKI_K6_BINARY" to "/no/such/k6") }.problems shouldBe
            listOf("DANKI_K6_BINARY=/no/such/k6: no executable file")
        Executables.find("k6", "/nowhere:${binDir().path}") shouldBe File(binDir(), "k6")
        Executables.find("k6", null) shouldBe null
    }

    @Test
    fun `the log format is accepted in any case`() {
        load("DANKI_LOG_FORMAT" to "JSON").logFormat shouldBe OperatorConfig.LogFormat.JSON
        load("DANKI_LOG_FORMAT" to "Text").logFormat shouldBe OperatorConfig.LogFormat.TEXT
    }
}

class WebhookConfigLoaderTest {
    @TempDir
    lateinit var dir: File

    private fun load(vararg env: Pair<String, String>): OperatorConfig {
        val script = File(dir, "warmup.js").apply { writeText("//") }.path
        val k6 = File(dir, "k6").apply { writeText("#!/bin/sh\n") }.also { it.setExecutable(true) }.path
        val base = mapOf("DANKI_K6_SCRIPT" to script, "DANKI_K6_BINARY" to k6, "POD_NAMESPACE" to "danki-system")
        return ConfigLoader(base + env.toMap(), File(dir, "none")).load()
    }

    @Test
    fun `ungated pods are replaced unless the operator is told to report them only`() {
        load().ungatedPods shouldBe UngatedPods.REPLACE
        load("DANKI_UNGATED_PODS" to "Report").ungatedPods shouldBe UngatedPods.REPORT
        shouldThrow<ConfigException> { load("DANKI_UNGATED_PODS" to "evict") }.message shouldContain
            "DANKI_UNGATED_PODS=evict: expected one of report, replace"
    }

    @Test
    fun `a bare process injects through the template and has no webhook`() {
        val config = load()
        config.gateInjection shouldBe GateInjection.TEMPLATE
        config.webhook shouldBe null
    }

    @Test
    fun `webhook mode reads the Service, configuration, Secret and lifetimes`() {
        val webhook =
            load(
                "DANKI_GATE_INJECTION" to "webhook",
                "DANKI_WEBHOOK_SERVICE" to "danki-webhook",
                "DANKI_WEBHOOK_CONFIGURATION" to "danki",
                "DANKI_WEBHOOK_SECRET" to "danki-webhook-tls",
                "DANKI_WEBHOOK_CERT_VALIDITY" to "90s",
                "DANKI_WEBHOOK_CA_VALIDITY" to "3m",
                "DANKI_WEBHOOK_TIMEOUT_SECONDS" to "6",
            ).webhook!!
        webhook.namespace shouldBe "danki-system"
        // half of the API server's wait for the webhook may go to a read past the cache
        webhook.readBudget shouldBe java.time.Duration.ofSeconds(3)
        webhook.secretName shouldBe "danki-webhook-tls"
        webhook.certValidity shouldBe java.time.Duration.ofSeconds(90)
        webhook.caValidity shouldBe java.time.Duration.ofMinutes(3)
        webhook.checkEvery shouldBe java.time.Duration.ofSeconds(15)
    }

    @Test
    fun `webhook mode takes no gate off a template unless told to, as it then needs patch on Deployments`() {
        val webhook =
            arrayOf(
                "DANKI_GATE_INJECTION" to "webhook",
                "DANKI_WEBHOOK_SERVICE" to "danki-webhook",
                "DANKI_WEBHOOK_CONFIGURATION" to "danki",
                "DANKI_WEBHOOK_SECRET" to "danki-webhook-tls",
            )
        load(*webhook).webhook!!.stripTemplateGates shouldBe false
        load(*webhook, "DANKI_WEBHOOK_STRIP_TEMPLATE_GATES" to "true").webhook!!.stripTemplateGates shouldBe true
    }

    @Test
    fun `webhook mode without names, with a bad lifetime or an unknown mode is refused with each problem`() {
        val error =
            shouldThrow<ConfigException> {
                load(
                    "DANKI_GATE_INJECTION" to "webhook",
                    "DANKI_WEBHOOK_CERT_VALIDITY" to "soon",
                    "DANKI_WEBHOOK_TIMEOUT_SECONDS" to "0",
                    "DANKI_WEBHOOK_PORT" to "https",
                )
            }
        error.problems shouldBe
            listOf(
                "DANKI_GATE_INJECTION=webhook: set DANKI_WEBHOOK_SECRET (own certificates) or " +
                    "DANKI_WEBHOOK_CERT_DIR (cert-manager's)",
                "DANKI_WEBHOOK_CERT_VALIDITY=soon: expected a whole number with a unit s, m, h or d, e.g. 2160h",
                "DANKI_WEBHOOK_PORT=https: expected a whole number from 1 to 65535",
                "DANKI_WEBHOOK_TIMEOUT_SECONDS=0: expected a whole number from 1 to 30 (the webhook " +
                    "configuration's timeoutSeconds)",
                "DANKI_WEBHOOK_SERVICE: required with DANKI_GATE_INJECTION=webhook",
                "DANKI_WEBHOOK_CONFIGURATION: required with DANKI_GATE_INJECTION=webhook",
            )
        shouldThrow<ConfigException> { load("DANKI_GATE_INJECTION" to "admission") }.message shouldContain
            "webhook, template"
    }

    @Test
    fun `AOT caches are off by default, and read with the webhook and the runner image`() {
        load().aot shouldBe null
        val aot =
            load(
                "DANKI_GATE_INJECTION" to "webhook",
                "DANKI_WEBHOOK_SERVICE" to "danki-webhook",
                "DANKI_WEBHOOK_CONFIGURATION" to "danki",
                "DANKI_WEBHOOK_SECRET" to "danki-webhook-tls",
                "DANKI_RUNNER_IMAGE" to "danki/k6-runner:1",
                "DANKI_AOT_ENABLED" to "true",
                "DANKI_AOT_STORAGE_CLASS" to "danki-local",
                "DANKI_AOT_ACCESS_MODES" to "ReadWriteMany, ReadOnlyMany",
                "DANKI_AOT_STORAGE_SIZE" to "512Mi",
                "DANKI_AOT_TRAINING_TIMEOUT_MINUTES" to "30",
            ).aot
        aot shouldBe
            AotSettings(
                "danki-local",
                listOf("ReadWriteMany", "ReadOnlyMany"),
                "512Mi",
                java.time.Duration.ofMinutes(30),
            )
    }

    @Test
    fun `AOT caches without the webhook or the runner image, or with bad settings, are refused by name`() {
        val error =
            shouldThrow<ConfigException> {
                load(
                    "DANKI_GATE_INJECTION" to "template",
                    "DANKI_AOT_ENABLED" to "true",
                    "DANKI_AOT_ACCESS_MODES" to "ReadWriteSometimes",
                    "DANKI_AOT_STORAGE_SIZE" to "lots",
                    "DANKI_AOT_STORAGE_CLASS" to "Not_A_Class",
                )
            }
        error.message!! shouldContain "DANKI_AOT_ENABLED=true needs DANKI_GATE_INJECTION=webhook"
        error.message!! shouldContain "DANKI_AOT_ENABLED=true needs DANKI_RUNNER_IMAGE"
        error.message!! shouldContain "DANKI_AOT_ACCESS_MODES: ReadWriteSometimes is not one of"
        error.message!! shouldContain "DANKI_AOT_ACCESS_MODES=ReadWriteSometimes: must include ReadWriteMany"
        error.message!! shouldContain "DANKI_AOT_STORAGE_SIZE=lots: expected a storage quantity"
        error.message!! shouldContain "DANKI_AOT_STORAGE_CLASS=Not_A_Class: expected a lower-case DNS name"
    }
}
