package dev.danki.operator.aot

import dev.danki.operator.kube.AotCache
import io.fabric8.kubernetes.api.model.Condition
import io.fabric8.kubernetes.api.model.ConditionBuilder
import java.time.Instant

/** The AotCache's one condition, `Ready`: whether new pods are given a cache, with a reason and a message. */
object AotConditions {
    fun ready(reason: String, message: String): Condition = of("True", reason, message)

    fun notReady(reason: String, message: String): Condition = of("False", reason, message)

    private fun of(status: String, reason: String, message: String): Condition =
        ConditionBuilder()
            .withType(AotCache.CONDITION_READY)
            .withStatus(status)
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(Instant.now().toString())
            .build()
}
