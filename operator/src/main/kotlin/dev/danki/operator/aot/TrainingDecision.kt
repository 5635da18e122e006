package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import dev.danki.operator.kube.AotCacheStatus

/**
 * Whether a Deployment's cache is to be trained now, and why: decided from the AotCache's status (the
 * cluster's record, so a new leader decides as the old one would) and the Deployment as it is.
 * Pure; a training in progress on this replica is the caller's to rule out.
 */
object TrainingDecision {
    const val CREATED = "Created"
    const val TEMPLATE_CHANGED = "TemplateChanged"
    const val REJECTED = "Rejected"
    const val REQUESTED = "Requested"

    /** The claim that held a ready cache was gone and has been made again, empty. */
    const val CLAIM_RECREATED = "ClaimRecreated"

    /** A training left in progress by a replica that stopped or lost the lease. */
    const val RESUMED = "Resumed"

    /** Trainings of one template in a row after its JVM refused the cache; then the cache stays Failed. */
    const val MAX_RETRAINS = 2

    /**
     * The cause to train with, or null: nothing to do. [templateDigest]: of the whole pod template;
     * [trainRequest]: the Deployment's `danki.dev/aot-train`; [claimCreated]: the claim was missing and
     * has just been made, empty. A ready cache is retrained when the JVM's code or options change, or its
     * file went with its claim; a failed or unsupported one on any change of the template (a fixed volume,
     * a new library path), since that may be what made it fail.
     */
    fun of(
        status: AotCacheStatus?,
        jvm: JvmContainer,
        templateDigest: String,
        trainRequest: String?,
        claimCreated: Boolean = false,
    ): String? {
        if (status?.phase == null) return CREATED
        return when {
            status.phase == AotCache.PHASE_TRAINING -> RESUMED
            claimCreated && status.phase == AotCache.PHASE_READY -> CLAIM_RECREATED
            trainRequest != null && trainRequest != status.trainRequest -> REQUESTED
            templateChanged(status, jvm, templateDigest) -> TEMPLATE_CHANGED
            rejected(status) -> REJECTED
            else -> null
        }
    }

    /** A ready cache: the JVM's code or options changed; any other: anything in the template changed. */
    private fun templateChanged(status: AotCacheStatus, jvm: JvmContainer, templateDigest: String): Boolean =
        if (status.phase == AotCache.PHASE_READY) {
            status.lastTrainingFor?.startsWith(jvm.cacheKey + "/") != true
        } else {
            status.lastTrainingFor != jvm.trainingKey(templateDigest)
        }

    /** Pods' JVMs refused the cache in use, and it has not been retrained too often already. */
    private fun rejected(status: AotCacheStatus): Boolean =
        status.phase == AotCache.PHASE_READY &&
            status.sha256 != null &&
            status.rejectedSha256 == status.sha256 &&
            (status.retrains ?: 0) < MAX_RETRAINS

    /** Retrains in a row after [cause]: counted up on a refusal, back to zero on any other cause. */
    fun retrainsAfter(status: AotCacheStatus?, cause: String): Int =
        when (cause) {
            REJECTED -> (status?.retrains ?: 0) + 1
            RESUMED -> status?.retrains ?: 0
            else -> 0
        }
}
