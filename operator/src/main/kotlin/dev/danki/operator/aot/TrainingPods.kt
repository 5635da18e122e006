package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Owners
import dev.danki.operator.runner.Hardening
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.ObjectMeta
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.fabric8.kubernetes.api.model.PodSpec
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirements
import io.fabric8.kubernetes.api.model.Volume
import io.fabric8.kubernetes.api.model.VolumeBuilder
import io.fabric8.kubernetes.api.model.VolumeMount
import io.fabric8.kubernetes.api.model.VolumeMountBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.fabric8.kubernetes.client.utils.Serialization
import java.math.BigDecimal
import java.time.Duration

/**
 * The two pods of a training, made of the Deployment and its AotCache alone:
 * - the training pod: the Deployment's own pod template (same image, same JVM) with the recording
 *   option, writing into the claim; its labels are danki's only, so no Service and no ReplicaSet
 *   selects it, and it counts in no replica count;
 * - the sealing pod: danki's runner image, which hashes the file the training JVM wrote and moves it
 *   where pods read it. The tenant's image never computes the digest that every later pod trusts.
 */
object TrainingPods {
    /** The file the training JVM writes at exit, in the claim's root (which its user can write). */
    fun trainingFile(fingerprint: String) = "training-${fingerprint.take(FILE_HASH)}.aot"

    /** The training pod; throws [JvmOptions.Refused] when the JVM options cannot be added without hiding the user's. */
    fun training(deployment: Deployment, cache: AotCache, jvm: JvmContainer, timeout: Duration): Pod {
        // a deep copy: the template is the informer cache's object
        val spec = Serialization.clone(deployment.spec.template.spec)
        val file = "${Keys.Aot.STORE_DIR}/${trainingFile(jvm.codeFingerprint)}"
        spec.containers = spec.containers.map { c -> if (c.name == jvm.name) recording(c, file) else c }
        spec.volumes =
            spec.volumes.orEmpty().filterNot { it.name == Keys.Aot.STORE_VOLUME } +
            storeVolume(cache.spec.claimName, false)
        spec.readinessGates = spec.readinessGates.orEmpty().filterNot { it.conditionType == Keys.GATE_CONDITION }
        // one run: a JVM that exits, cleanly or not, ends the training rather than restarting
        spec.restartPolicy = "Never"
        spec.activeDeadlineSeconds = timeout.seconds
        // the JVM writes the cache at exit, from a child JVM it starts for that: give it time
        spec.terminationGracePeriodSeconds = maxOf(spec.terminationGracePeriodSeconds ?: 0L, EXIT_GRACE_SECONDS)
        return PodBuilder()
            .withMetadata(metadata(cache, "train", jvm.codeFingerprint))
            .withSpec(spec)
            .build()
    }

    private fun recording(container: Container, file: String): Container {
        val options = "-XX:AOTCacheOutput=$file"
        val env = JvmOptions.append(container.env.orEmpty(), !container.envFrom.isNullOrEmpty(), options)
        val resources = Serialization.clone(container.resources ?: ResourceRequirements())
        // writing the cache starts a second JVM beside the first; the JDK notes it can double peak memory
        resources.limits?.get(MEMORY)?.let { limit ->
            resources.limits = resources.limits + (MEMORY to Quantity(doubled(limit)))
        }
        return ContainerBuilder(container)
            .withEnv(env)
            .withResources(resources)
            // a liveness probe failing under training load would restart the JVM mid-recording; Never ends it
            .withLivenessProbe(null)
            .withVolumeMounts(container.volumeMounts.orEmpty() + storeMount(false))
            .build()
    }

    private fun doubled(limit: Quantity): String =
        Quantity
            .getAmountInBytes(limit)
            .multiply(BigDecimal(2))
            .toBigInteger()
            .toString()

    /** The sealing pod: hashes the training's file into `cache/<sha256>.aot`, keeping [keep] (the cache in use). */
    fun sealing(cache: AotCache, fingerprint: String, runnerImage: String, keep: String?): Pod =
        PodBuilder()
            .withMetadata(metadata(cache, "seal", fingerprint))
            .withSpec(
                PodSpec().apply {
                    restartPolicy = "Never"
                    activeDeadlineSeconds = SEAL_DEADLINE_SECONDS
                    terminationGracePeriodSeconds = 1L
                    // no token, no Service variables: nothing that names or reaches the cluster's API
                    automountServiceAccountToken = false
                    enableServiceLinks = false
                    securityContext = Hardening.pod()
                    containers = listOf(sealer(fingerprint, runnerImage, keep))
                    volumes = listOf(storeVolume(cache.spec.claimName, false))
                },
            ).build()

    private fun sealer(fingerprint: String, runnerImage: String, keep: String?): Container =
        ContainerBuilder()
            .withName(SEALER)
            .withImage(runnerImage)
            .withCommand("sh", "-c", SEAL_SCRIPT)
            .withEnv(
                EnvVar("STORE", Keys.Aot.STORE_DIR, null),
                EnvVar("SOURCE", trainingFile(fingerprint), null),
                EnvVar("KEEP", keep.orEmpty(), null),
            ).withResources(Hardening.SMALL)
            .withTerminationMessagePolicy("File")
            .withSecurityContext(Hardening.container())
            .withVolumeMounts(storeMount(false))
            .build()

    /** `sealed <sha256> <bytes>` in the sealer's termination message; null for anything else. */
    fun sealedOf(message: String?): Pair<String, Long>? {
        val m = SEALED.matchEntire(message?.trim().orEmpty()) ?: return null
        return m.groupValues[1] to m.groupValues[2].toLong()
    }

    /** The claim-relative path pods read a sealed cache from. */
    fun cacheFile(sha256: String) = "cache/$sha256.aot"

    /** The claim that stores the caches, as every pod that reads it (read-only) or writes it has it. */
    fun storeVolume(claimName: String?, readOnly: Boolean): Volume =
        VolumeBuilder()
            .withName(Keys.Aot.STORE_VOLUME)
            .withNewPersistentVolumeClaim(claimName, readOnly)
            .build()

    fun storeMount(readOnly: Boolean): VolumeMount =
        VolumeMountBuilder()
            .withName(Keys.Aot.STORE_VOLUME)
            .withMountPath(Keys.Aot.STORE_DIR)
            .withReadOnly(readOnly)
            .build()

    /** `danki-aot-<what>-<deployment>-<hash>`, cut to a label's 63 characters; owned by the AotCache. */
    private fun metadata(cache: AotCache, what: String, fingerprint: String): ObjectMeta {
        val suffix = "-" + fingerprint.take(NAME_HASH)
        val name = ("danki-aot-$what-" + cache.metadata.name).take(MAX_NAME - suffix.length).trimEnd('-', '.') + suffix
        return ObjectMetaBuilder()
            .withName(name)
            .withNamespace(cache.metadata.namespace)
            .withLabels<String, String>(
                mapOf(
                    Keys.Aot.TRAINING_LABEL to "true",
                    Keys.MANAGED_BY_LABEL to Keys.FIELD_MANAGER,
                    "app.kubernetes.io/component" to "aot-$what",
                ),
            ).withOwnerReferences(Owners.of(cache))
            .build()
    }

    const val SEALER = "seal"
    private const val MEMORY = "memory"
    private const val EXIT_GRACE_SECONDS = 180L
    private const val SEAL_DEADLINE_SECONDS = 300L
    private const val FILE_HASH = 16
    private const val NAME_HASH = 10
    private const val MAX_NAME = 63
    private val SEALED = Regex("sealed ([0-9a-f]{64}) ([0-9]{1,15})")

    /**
     * Copies (not moves: the claim's root is shared and sticky, and the training ran as another user)
     * the training's file into `cache/`, hashes the copy, names it by its digest, and makes it
     * read-only; keeps the cache in use ($KEEP) for pods admitted before the new one is published,
     * and removes older ones. Reports `sealed <sha256> <bytes>`, or why not, as its termination message.
     */
    private val SEAL_SCRIPT =
        """
        set -u
        fail() { echo "${'$'}1" > /dev/termination-log; exit 1; }
        src="${'$'}STORE/${'$'}SOURCE"
        [ -s "${'$'}src" ] || fail "the training JVM wrote no cache (no ${'$'}SOURCE in the claim)"
        mkdir -p "${'$'}STORE/cache" || fail "cannot create cache/ in the claim"
        tmp="${'$'}STORE/cache/.sealing"
        cp "${'$'}src" "${'$'}tmp" || fail "cannot copy ${'$'}SOURCE into cache/"
        sum=${'$'}(sha256sum "${'$'}tmp" | cut -c1-64)
        size=${'$'}(wc -c < "${'$'}tmp" | tr -d ' ')
        chmod 0444 "${'$'}tmp" && mv -f "${'$'}tmp" "${'$'}STORE/cache/${'$'}sum.aot" || fail "cannot name the cache by its digest"
        rm -f "${'$'}src" 2>/dev/null
        for f in "${'$'}STORE"/cache/*.aot; do
          case "${'$'}f" in "${'$'}STORE/cache/${'$'}sum.aot"|"${'$'}STORE/cache/${'$'}KEEP.aot") ;; *) rm -f "${'$'}f" ;; esac
        done
        echo "sealed ${'$'}sum ${'$'}size" > /dev/termination-log
        """.trimIndent()
}
