package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import dev.danki.operator.runner.Hardening
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.ContainerBuilder
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.Quantity

/**
 * The init container the webhook adds to a pod given an AOT cache: it copies the cache from the
 * Deployment's claim into the pod's own volume and keeps the copy only when its SHA-256 is the one the
 * AotCache names. The claim can be written by any pod of the namespace that mounts it; the copy, checked
 * after it was made, is what the JVM maps, so a file swapped on the claim is never used.
 *
 * It runs danki's runner image, never the tenant's, and always exits 0: a missing or wrong cache means a
 * cold start, never a pod that does not start. What it found is its termination message, which
 * [AotProbe] reads: `verified <sha256>` or `absent: <why>`.
 */
object AotVerifyContainer {
    const val SHA256_ENV = "DANKI_AOT_SHA256"
    const val FILE_ENV = "DANKI_AOT_FILE"

    /** The copy before its digest is checked; renamed to [Keys.Aot.COPY_FILE] only when it matches. */
    const val COPY_TMP = "${Keys.Aot.COPY_FILE}.tmp"

    /** The nonroot UID of danki's images (see the Dockerfile). */
    const val USER = Hardening.NON_ROOT

    /**
     * POSIX sh (busybox or dash): sh, cp, mv, chmod, rm, sha256sum. The values come in the environment and
     * are only ever expanded inside double quotes; the paths are constants without quotes.
     */
    val SCRIPT =
        """
        tmp='$COPY_TMP'
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

    /** The container for the cache [sha256] at [file] in the claim, running [image]. */
    fun of(image: String, sha256: String, file: String): Container =
        ContainerBuilder()
            .withName(Keys.Aot.VERIFY_CONTAINER)
            .withImage(image)
            .withCommand("sh", "-c", SCRIPT)
            .withEnv(EnvVar(SHA256_ENV, sha256, null), EnvVar(FILE_ENV, file, null))
            .addNewVolumeMount()
            .withName(Keys.Aot.STORE_VOLUME)
            .withMountPath(Keys.Aot.STORE_DIR)
            .withReadOnly(true)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(Keys.Aot.COPY_VOLUME)
            .withMountPath(Keys.Aot.COPY_DIR)
            .endVolumeMount()
            .withResources(Hardening.SMALL)
            .withSecurityContext(Hardening.container(ownUser = true))
            .withTerminationMessagePolicy("File")
            .build()
}
