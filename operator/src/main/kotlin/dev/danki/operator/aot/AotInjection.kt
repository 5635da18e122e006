package dev.danki.operator.aot

import dev.danki.operator.config.AotSettings
import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.JsonPatchAdd
import dev.danki.operator.kube.Keys
import dev.danki.operator.runner.Hardening
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.VolumeBuilder
import io.fabric8.kubernetes.api.model.VolumeMountBuilder
import io.fabric8.kubernetes.api.model.apps.Deployment

/**
 * What the webhook adds to a pod being created so that its JVM starts from its Deployment's AOT cache,
 * as JSON Patch operations: the cache's digest as an annotation, the claim and an emptyDir as volumes,
 * the verify container ([VERIFY_SCRIPT]) after the pod's own init containers, and in the JVM container the
 * copy's mount and `-XX:AOTCache` (through [JvmOptions]). Pure: the Deployment and its AotCache are looked
 * up by the caller, which adds these operations only to a pod that will be warmed.
 */
object AotInjection {
    /** [ops] to add (empty: the pod starts without a cache); [refusal]: why [JvmOptions] would not add the option. */
    data class Result(
        val ops: List<Map<String, Any>> = emptyList(),
        val refusal: String? = null,
    )

    /** The option the JVM container gets; [AotProbe] finds the JVM container by it. */
    const val OPTION = "-XX:AOTCache=${Keys.Aot.COPY_FILE}"

    /** Room for the file system's own blocks beside the copy. */
    private const val COPY_HEADROOM_MI = 64L
    private const val MI = 1024L * 1024L

    /** The copy's limit when the cache's size is not recorded: the default claim's size, which held it. */
    private const val UNKNOWN_SIZE_LIMIT = AotSettings.DEFAULT_SIZE

    private val SHA256 = Regex("[0-9a-f]{64}")

    /** The only paths the training writes; anything else in the status is not danki's. */
    private val FILE = Regex("cache/[0-9a-f]{64}\\.aot")

    /** The patch for [pod] of [deployment], given its [cache] (null: none yet) and danki's [runnerImage]. */
    fun patchFor(pod: Pod, deployment: Deployment, cache: AotCache?, runnerImage: String?): Result {
        val annotations = deployment.metadata?.annotations.orEmpty()
        val stored = stored(cache)
        val wanted = annotations[Keys.Annotations.AOT_CACHE] == Keys.Annotations.ENABLED && !clashes(pod)
        val spec = pod.spec?.takeIf { wanted }
        if (stored == null || spec == null || runnerImage.isNullOrBlank()) return Result()
        val jvm = JvmContainer.of(spec, annotations[Keys.Annotations.PORT])
        // another image, command or arguments load other classes: the cache cannot fit, the pod starts cold
        if (jvm == null || jvm.codeFingerprint != stored.codeFingerprint) return Result()
        val index = spec.containers.indexOfFirst { it.name == jvm.name }
        val container = spec.containers[index]
        // other JVM options are the JVM's to judge: it refuses a cache it cannot use, and danki retrains
        return try {
            val env = JvmOptions.append(container.env.orEmpty(), !container.envFrom.isNullOrEmpty(), OPTION)
            Result(ops(pod, index, env, runnerImage, stored))
        } catch (refused: JvmOptions.Refused) {
            Result(refusal = refused.reason)
        }
    }

    private fun ops(
        pod: Pod,
        index: Int,
        env: List<EnvVar>,
        runnerImage: String,
        stored: Stored,
    ): List<Map<String, Any>> {
        val spec = pod.spec
        val container = spec.containers[index]
        val copyMount =
            VolumeMountBuilder()
                .withName(Keys.Aot.COPY_VOLUME)
                .withMountPath(Keys.Aot.COPY_DIR)
                .withReadOnly(true)
                .build()
        val at = "/spec/containers/$index"
        return listOf(
            JsonPatchAdd.toMap(
                "/metadata/annotations",
                pod.metadata?.annotations,
                Keys.Aot.CACHE_ANNOTATION,
                stored.sha256,
            ),
            JsonPatchAdd.toList("/spec/volumes", spec.volumes, TrainingPods.storeVolume(stored.claimName, true)),
            JsonPatchAdd.op("/spec/volumes/-", copyVolume(stored.sizeBytes)),
            JsonPatchAdd.toList(
                "/spec/initContainers",
                spec.initContainers,
                verifier(runnerImage, stored.sha256, stored.file),
            ),
            JsonPatchAdd.toList("$at/volumeMounts", container.volumeMounts, copyMount),
            // `add` of a member that exists replaces it: the whole env, as JvmOptions returned it
            JsonPatchAdd.op("$at/env", env),
        )
    }

    /** The cache as the AotCache's spec and status name it, when complete and well-formed. */
    private class Stored(
        val claimName: String,
        val sha256: String,
        val file: String,
        val sizeBytes: Long?,
        val codeFingerprint: String,
    )

    private fun stored(cache: AotCache?): Stored? {
        val status = cache?.status ?: return null
        val code = status.codeFingerprint ?: return null
        val claim = cache.spec?.claimName?.takeIf { it.isNotBlank() }
        // checked here although only the operator writes them: they end up in a shell's environment
        val sha256 = status.sha256?.takeIf { SHA256.matches(it) }
        val file = status.file?.takeIf { FILE.matches(it) }
        if (claim == null || sha256 == null || file == null) return null
        return Stored(claim, sha256, file, status.sizeBytes, code)
    }

    /**
     * A name or path danki would add is there already (a copied spec): adding it again would make the pod
     * invalid. Volume and container names are checked as one set: a false alarm only means a cold start.
     */
    private fun clashes(pod: Pod): Boolean {
        val spec = pod.spec ?: return false
        val containers = spec.initContainers.orEmpty() + spec.containers.orEmpty()
        val names = spec.volumes.orEmpty().map { it.name } + containers.map { it.name }
        val mounts = containers.flatMap { c -> c.volumeMounts.orEmpty().map { it.mountPath.orEmpty().trimEnd('/') } }
        return pod.metadata
            ?.annotations
            .orEmpty()
            .containsKey(Keys.Aot.CACHE_ANNOTATION) ||
            names.any { it in OWN_NAMES } ||
            Keys.Aot.COPY_DIR in mounts
    }

    private val OWN_NAMES = setOf(Keys.Aot.STORE_VOLUME, Keys.Aot.COPY_VOLUME, Keys.Aot.VERIFY_CONTAINER)

    private fun copyVolume(sizeBytes: Long?) =
        VolumeBuilder()
            .withName(Keys.Aot.COPY_VOLUME)
            .withNewEmptyDir()
            .withSizeLimit(Quantity(sizeLimit(sizeBytes)))
            .endEmptyDir()
            .build()

    /** The copy's emptyDir limit: the cache, rounded up to MiB, plus [COPY_HEADROOM_MI]. */
    internal fun sizeLimit(sizeBytes: Long?): String {
        if (sizeBytes == null || sizeBytes <= 0) return UNKNOWN_SIZE_LIMIT
        return "${(sizeBytes + MI - 1) / MI + COPY_HEADROOM_MI}Mi"
    }

    /**
     * The init container given a cache: it copies the cache from the Deployment's claim into the pod's own
     * volume and keeps the copy only when its SHA-256 is the one the AotCache names. The claim can be
     * written by any pod of the namespace that mounts it; the copy, checked after it was made, is what the
     * JVM maps, so a file swapped on the claim is never used. It runs danki's runner image, never the
     * tenant's, and always exits 0: a missing or wrong cache means a cold start, never a pod that does not
     * start. What it found is its termination message, which [AotProbe] reads: `verified <sha256>` or
     * `absent: <why>`.
     */
    private fun verifier(image: String, sha256: String, file: String): Container =
        ContainerBuilder()
            .withName(Keys.Aot.VERIFY_CONTAINER)
            .withImage(image)
            .withCommand("sh", "-c", VERIFY_SCRIPT)
            .withEnv(EnvVar(SHA256_ENV, sha256, null), EnvVar(FILE_ENV, file, null))
            .addToVolumeMounts(TrainingPods.storeMount(true))
            .addNewVolumeMount()
            .withName(Keys.Aot.COPY_VOLUME)
            .withMountPath(Keys.Aot.COPY_DIR)
            .endVolumeMount()
            .withResources(Hardening.SMALL)
            .withSecurityContext(Hardening.container(ownUser = true))
            .withTerminationMessagePolicy("File")
            .build()

    const val SHA256_ENV = "DANKI_AOT_SHA256"
    const val FILE_ENV = "DANKI_AOT_FILE"

    /**
     * The verify container's POSIX sh (busybox or dash): sh, cp, mv, chmod, rm, sha256sum. The values come
     * in the environment and are only ever expanded inside double quotes; the paths are constants without
     * quotes. The copy is renamed to [Keys.Aot.COPY_FILE] only when its digest matches.
     */
    val VERIFY_SCRIPT =
        """
        tmp='${Keys.Aot.COPY_FILE}.tmp'
        dst='${Keys.Aot.COPY_FILE}'
        src='${Keys.Aot.STORE_DIR}'/"${'$'}$FILE_ENV"
        report() { printf '%s\n' "${'$'}1" > /dev/termination-log || :; }
        absent() { rm -f "${'$'}tmp" "${'$'}dst"; report "${Keys.Aot.ABSENT}: ${'$'}1"; exit 0; }
        [ -f "${'$'}src" ] || absent "no cache file at ${'$'}$FILE_ENV"
        cp "${'$'}src" "${'$'}tmp" || absent "the cache file could not be copied"
        got=${'$'}(sha256sum "${'$'}tmp") || absent "the cache file could not be read"
        got=${'$'}{got%% *}
        [ "${'$'}got" = "${'$'}$SHA256_ENV" ] || absent "checksum mismatch: got ${'$'}got"
        mv "${'$'}tmp" "${'$'}dst" && chmod 0444 "${'$'}dst" || absent "the cache file could not be placed"
        report "${Keys.Aot.VERIFIED} ${'$'}got"
        exit 0
        """.trimIndent()
}
