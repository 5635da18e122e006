package dev.danki.operator.bench

import dev.danki.operator.it.Fixtures
import dev.danki.operator.it.TestApiServer
import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.testkit.Manifests
import dev.danki.operator.webhook.Certificates
import dev.danki.operator.webhook.KeyMaterial
import dev.danki.operator.webhook.OptInLookup
import dev.danki.operator.webhook.OptInReads
import dev.danki.operator.webhook.PodAdmission
import dev.danki.operator.webhook.ServingKeys
import dev.danki.operator.webhook.WebhookServer
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.informers.SharedIndexInformer
import org.junit.jupiter.api.Test
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit

/**
 * How long the webhook takes to answer a pod's admission, measured as the API server meets it: an
 * AdmissionReview over HTTPS to the real webhook server, whose lookup reads real fabric8 informers and,
 * past them, a real kube-apiserver with etcd on loopback (`make bench-webhook`).
 *
 * Four paths, [SAMPLES] reviews each after [WARMUP] unmeasured ones, one at a time:
 * - hit: the pod's Deployment is in the cache and opted in: no read;
 * - miss: the Deployment is not in the cache yet (a Deployment created a moment ago): one GET;
 * - not opted in: in the cache but not opted in, in a namespace without the label: the Deployment and
 *   the Namespace are read, the cost every pod of a Deployment that is not opted in pays;
 * - a hit during a burst of pods of new Deployments whose reads are slow ([measureDuringBursts]).
 *
 * Writes bench/results/webhook-admission.md and .json. The goals (p99 at most 50 ms for a hit, 500 ms
 * for a miss) are reported, not asserted: speed belongs in the results file, not in a test's verdict.
 */
class AdmissionLatencyBench {
    private val client = TestApiServer.client
    private val cached = "danki-bench-cached"
    private val uncached = "danki-bench-uncached"

    @Test
    fun `admission latency by lookup path`() {
        for (ns in listOf(cached, uncached)) Fixtures.namespace(client, ns)
        for (i in 0 until DEPLOYMENTS) {
            client.resource(Manifests.deployment(cached, "hit-$i", OPTED_IN)).create()
            client.resource(Manifests.deployment(cached, "plain-$i", emptyMap())).create()
            client.resource(Manifests.deployment(uncached, "miss-$i", OPTED_IN)).create()
        }
        val deployments =
            client
                .apps()
                .deployments()
                .inNamespace(cached)
                .inform()
        val namespaces = client.namespaces().inform()
        val keys = ServingKeys()
        val ca = Certificates.newCa(Instant.now(), Duration.ofDays(1))
        keys.load(Certificates.newServing(ca, listOf("localhost"), Instant.now(), Duration.ofDays(1)))
        val metrics = WarmupMetrics()
        val lookup =
            OptInLookup(informerReads(deployments, namespaces), slowForBursts(OptInReads.api(client)), metrics, true)
        val server =
            WebhookServer(
                0,
                keys,
                PodAdmission(metrics, lookup, client.kubernetesSerialization),
            ).apply { start() }
        try {
            val http = clientTrusting(ca)
            val url = URI("https://localhost:${server.port}${WebhookServer.PATH}")
            val paths =
                listOf(
                    Path("hit", cached, "hit", gated = true),
                    Path("miss", uncached, "miss", gated = true),
                    Path("not opted in", cached, "plain", gated = false),
                )
            val results = measure(http, url, paths) + (BURST_PATH to measureDuringBursts(http, url, paths.first()))
            write(results)
        } finally {
            server.stop()
            lookup.close()
            deployments.close()
            namespaces.close()
            for (ns in listOf(cached, uncached)) client.namespaces().withName(ns).delete()
        }
    }

    private data class Path(
        val name: String,
        val namespace: String,
        val prefix: String,
        val gated: Boolean,
    )

    /** The paths take turns, review by review, so that load from elsewhere and the JIT weigh on each alike. */
    private fun measure(http: HttpClient, url: URI, paths: List<Path>): Map<String, List<Double>> {
        val millis = paths.associate { it.name to mutableListOf<Double>() }
        for (i in 0 until WARMUP + SAMPLES) {
            for (path in paths) {
                val took = send(http, url, path, i)
                if (i >= WARMUP) millis.getValue(path.name) += took
            }
        }
        return millis.mapValues { (_, ms) -> ms.sorted() }
    }

    /**
     * [hit]s answered while bursts of [BURST] pods of new Deployments ([BURST] / 2 of them, the cache has
     * none) wait on reads of an API server that takes [SLOW_READ_MILLIS] each: a tenant creating many
     * Deployments at once must not slow the other tenants' pods (issue 48, hole 6).
     */
    private fun measureDuringBursts(http: HttpClient, url: URI, hit: Path): List<Double> {
        val millis = mutableListOf<Double>()
        // round 0 is not measured: it opens the burst's connections, which the API server keeps open to
        // its webhooks from then on (a TLS handshake per review would be the client's cost, not danki's)
        var round = -1
        while (millis.size < SAMPLES) {
            val burst =
                (0 until BURST).map { i ->
                    val body = review(uncached, "$BURST_PREFIX$round-${i / 2}", i)
                    http.sendAsync(request(url, body), HttpResponse.BodyHandlers.ofString())
                }
            repeat(HITS_PER_BURST) { i -> send(http, url, hit, i).also { if (round >= 0) millis += it } }
            // reads that could not be queued were answered at once; the others must still be waiting
            check(burst.any { !it.isDone }) { "the burst was answered before the hits: no contention measured" }
            burst.forEach { check(it.get().statusCode() == HTTP_OK) { "a burst review failed" } }
            round++
        }
        return millis.sorted()
    }

    /** [api], with every read of a burst's Deployment held [SLOW_READ_MILLIS] as by a slow API server. */
    private fun slowForBursts(api: OptInLookup.Reads): OptInLookup.Reads =
        object : OptInLookup.Reads by api {
            override fun deployment(namespace: String, name: String): Deployment? {
                if (name.startsWith(BURST_PREFIX)) Thread.sleep(SLOW_READ_MILLIS)
                return api.deployment(namespace, name)
            }
        }

    private fun request(url: URI, body: String): HttpRequest =
        HttpRequest
            .newBuilder(url)
            .timeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build()

    /** One review of a pod of [path]'s Deployments; the milliseconds to its answer. */
    private fun send(http: HttpClient, url: URI, path: Path, i: Int): Double {
        val body = review(path.namespace, "${path.prefix}-${i % DEPLOYMENTS}", i)
        val request = request(url, body)
        val started = System.nanoTime()
        val answer = http.send(request, HttpResponse.BodyHandlers.ofString())
        val took = (System.nanoTime() - started) / NANOS_PER_MILLI
        check(answer.statusCode() == HTTP_OK) { "webhook answered ${answer.statusCode()}: ${answer.body()}" }
        check(answer.body().contains("\"patch\"") == path.gated) { "${path.name}: unexpected answer ${answer.body()}" }
        return took
    }

    private fun review(namespace: String, deployment: String, i: Int) =
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-$i",
         "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"$namespace",
         "object":{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"$deployment-${Fixtures.HASH}-",
           "labels":{"app":"$deployment","${Keys.POD_TEMPLATE_HASH}":"${Fixtures.HASH}"},
           "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"$deployment-${Fixtures.HASH}",
             "uid":"00000000-0000-0000-0000-000000000001","controller":true}]},
          "spec":{"containers":[{"name":"app","image":"danki/sample-service:dev"}]}}}}
        """.trimIndent()

    private fun informerReads(
        deployments: SharedIndexInformer<Deployment>,
        namespaces: SharedIndexInformer<Namespace>,
    ): OptInLookup.Reads {
        // fabric8's inform() returns once the informer has listed: the hits are hits from the first review
        return object : OptInLookup.Reads {
            override fun deployment(namespace: String, name: String): Deployment? =
                deployments.indexer.getByKey("$namespace/$name")

            override fun namespaceLabels(namespace: String): Map<String, String>? =
                namespaces.indexer
                    .getByKey(namespace)
                    ?.metadata
                    ?.labels
        }
    }

    private fun clientTrusting(ca: KeyMaterial): HttpClient {
        val tls = Certificates.clientTrusting(ca.certificate)
        return HttpClient
            .newBuilder()
            .sslContext(tls)
            .connectTimeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS))
            .build()
    }

    private fun percentile(sorted: List<Double>, q: Double): Double = sorted[((sorted.size - 1) * q).toInt()]

    private fun write(results: Map<String, List<Double>>) {
        val dir = File(TestApiServer.repo, "bench/results").apply { mkdirs() }
        val goals = mapOf("hit" to HIT_GOAL_MS, "miss" to MISS_GOAL_MS, BURST_PATH to HIT_GOAL_MS)
        val rows =
            results.map { (name, ms) ->
                val p99 = percentile(ms, P99)
                val goal = goals[name]
                val verdict = goal?.let { if (p99 <= it) "met (<= $it ms)" else "MISSED (> $it ms)" } ?: "no goal"
                listOf(
                    name,
                    fmt(percentile(ms, P50)),
                    fmt(percentile(ms, P90)),
                    fmt(p99),
                    fmt(ms.last()),
                    verdict,
                )
            }
        val load = File("/proc/loadavg").takeIf { it.canRead() }?.readText()?.substringBefore(' ') ?: "?"
        val md =
            listOf(
                "# Webhook admission latency",
                "",
                "Measured ${Instant.now().truncatedTo(ChronoUnit.SECONDS)} by `make bench-webhook`",
                "(operator/src/test/kotlin/dev/danki/operator/bench/AdmissionLatencyBench.kt) on",
                "${Runtime.getRuntime().availableProcessors()} cores (1-minute load average $load at the end), " +
                    "JDK ${Runtime.version()}:",
                "$SAMPLES AdmissionReviews per path after $WARMUP unmeasured, the first three taking turns, one review",
                "at a time, each timed from the request to the answer over HTTPS on loopback, as the API server",
                "meets it. The webhook reads real fabric8 informers and, past them, a real kube-apiserver",
                "$KUBE_VERSION with etcd on the same machine.",
                "",
                "| path | p50 ms | p90 ms | p99 ms | max ms | p99 goal |",
                "|---|---|---|---|---|---|",
            ) + rows.map { "| ${it.joinToString(" | ")} |" } +
                listOf(
                    "",
                    *PATHS_EXPLAINED,
                )
        File(dir, "webhook-admission.md").writeText(md.joinToString("\n", postfix = "\n"))
        val json =
            results.entries.joinToString(",\n", "{\n", "\n}\n") { (name, ms) ->
                "  \"$name\": {\"samples\": ${ms.size}, \"p50_ms\": ${fmt(percentile(ms, P50))}, " +
                    "\"p90_ms\": ${fmt(percentile(ms, P90))}, \"p99_ms\": ${fmt(percentile(ms, P99))}, " +
                    "\"max_ms\": ${fmt(ms.last())}}"
            }
        File(dir, "webhook-admission.json").writeText(json)
        println(md.joinToString("\n"))
    }

    private fun fmt(ms: Double) = "%.2f".format(ms)

    private companion object {
        const val DEPLOYMENTS = 50
        const val BURST_PATH = "hit during a burst"
        const val BURST_PREFIX = "burst-"
        const val BURST = 200
        const val HITS_PER_BURST = 50
        const val SLOW_READ_MILLIS = 1_000L
        const val WARMUP = 300
        const val SAMPLES = 1_000
        const val HIT_GOAL_MS = 50.0
        const val MISS_GOAL_MS = 500.0
        const val P50 = 0.50
        const val P90 = 0.90
        const val P99 = 0.99
        const val HTTP_OK = 200
        const val NANOS_PER_MILLI = 1e6
        const val REQUEST_TIMEOUT_SECONDS = 10L
        val KUBE_VERSION = System.getenv("K8S_VERSION") ?: "v1.37.1"
        val OPTED_IN = mapOf(Keys.Annotations.WARMUP to "enabled")

        /** What each path of the table is, under it in the results file. */
        val PATHS_EXPLAINED =
            arrayOf(
                "- **hit**: the pod's Deployment is in the cache and opted in; nothing is read.",
                "- **miss**: the Deployment is not in the cache yet, as for a pod created moments after its",
                "  Deployment: one GET of the Deployment.",
                "- **not opted in**: the Deployment is in the cache but not opted in, in a namespace without the",
                "  opt-in label: the Deployment and the Namespace are read, since the cache may be behind an",
                "  opt-in. Every pod of a Deployment that is not opted in pays this, within the webhook's",
                "  namespaces.",
                "- **$BURST_PATH**: a hit, while $BURST pods of ${BURST / 2} Deployments the cache has not " +
                    "seen wait",
                "  on reads of an API server that takes $SLOW_READ_MILLIS ms each ($HITS_PER_BURST hits per " +
                    "burst, one at a time): a",
                "  tenant creating many Deployments at once. Reads are shared per Deployment and bounded " +
                    "apart from the",
                "  threads that answer hits; a read that cannot be queued fails open at once.",
                "",
                "A read past the cache is given up after ${OptInLookup.DEFAULT_BUDGET.toMillis()} ms (half " +
                    "the chart's 10 s webhook timeout)",
                "and the pod admitted without the gate, then reported.",
            )
    }
}
