package dev.danki.operator.config

import java.time.Duration

/**
 * How danki trains and stores JDK AOT caches (`aotCache.*` in the chart); null in [OperatorConfig] when
 * the feature is off, and then a Deployment's `danki.dev/aot-cache` gets a Warning Event and nothing else.
 * It needs the webhook (caches are given to pods at admission) and the runner image (the containers that
 * seal and check the cache run danki's image, never the tenant's).
 */
data class AotSettings(
    /** Storage class of each Deployment's claim; null: the cluster's default class. */
    val storageClassName: String? = null,
    val accessModes: List<String> = listOf(DEFAULT_ACCESS_MODE),
    val storageSize: String = DEFAULT_SIZE,
    /** From the training pod's creation to its cache sealed; a training past it fails. */
    val trainingTimeout: Duration = DEFAULT_TRAINING_TIMEOUT,
) {
    companion object {
        /** Every node that runs a pod of the Deployment reads the claim, and one pod writes it. */
        const val DEFAULT_ACCESS_MODE = "ReadWriteMany"
        const val DEFAULT_SIZE = "1Gi"
        val DEFAULT_TRAINING_TIMEOUT: Duration = Duration.ofMinutes(15)
        val ACCESS_MODES = setOf("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
    }
}
