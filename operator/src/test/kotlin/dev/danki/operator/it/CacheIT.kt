package dev.danki.operator.it

import dev.danki.operator.kube.Cache
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.string.shouldContain
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * A cache whose informer cannot list (here: its resource's CRD is not installed, as when the chart's
 * CRD is missing at start-up) reports why, which `/healthz` turns into a restart of the replica.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CacheIT {
    private val space = ItNamespace("danki-it-cache")

    @Test
    fun `an informer whose resource does not exist is a problem that names it and the likely cause`() {
        val ghosts =
            space.client
                .genericKubernetesResources(
                    ResourceDefinitionContext
                        .Builder()
                        .withGroup("danki.dev")
                        .withVersion("v1")
                        .withKind("Ghost")
                        .withPlural("ghosts")
                        .withNamespaced(true)
                        .build(),
                ).inNamespace(space.ns)
                .runnableInformer(0)
        val cache = Cache("Ghosts", listOf(ghosts))
        cache.problem().shouldBeNull()
        runCatching { cache.start().get(30, TimeUnit.SECONDS) }
        val problem = eventually(Duration.ofSeconds(30)) { cache.problem()!! }
        problem shouldContain "Ghosts informer stopped"
        problem shouldContain "(is the resource's CRD installed?)"
        cache.stop()
    }

    @Test
    fun `a cache that follows the API server has no problem, and none once stopped on purpose`() {
        val pods =
            space.client
                .pods()
                .inNamespace(space.ns)
                .runnableInformer(0)
        val cache = Cache("Pods", listOf(pods))
        cache.start().get(30, TimeUnit.SECONDS)
        cache.problem().shouldBeNull()
        cache.stop()
        Thread.sleep(200)
        cache.problem().shouldBeNull()
    }
}
