package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys

/**
 * What danki does about a pod of an opted-in Deployment that was admitted without the gate (the webhook
 * was unreachable, or could not tell the pod's Deployment in time): `danki.dev/ungated-pods`.
 */
enum class UngatedPods(
    val value: String,
) {
    /** A `PodNotGated` Event and the metric; the pod keeps serving as it is. */
    REPORT("report"),

    /**
     * Reported, then evicted (the Eviction API, so PodDisruptionBudgets hold), so that its ReplicaSet
     * creates a replacement that the webhook gates and danki warms. Only a pod that has not served for
     * long is evicted: one that has is warm from its own traffic, and a replacement would start cold.
     */
    REPLACE("replace"),
    ;

    companion object {
        const val EXPECTED = "report or replace"

        fun parse(raw: String): UngatedPods? = entries.firstOrNull { it.value == raw.trim().lowercase() }

        /**
         * A Deployment's choice from its [annotations], else [default]. A value that does not parse (named
         * by the plan's InvalidWarmupConfig Event) reports only: never evict on a setting danki cannot read.
         */
        fun of(annotations: Map<String, String>, default: UngatedPods): UngatedPods {
            val raw = annotations[Keys.Annotations.UNGATED_PODS] ?: return default
            return parse(raw) ?: REPORT
        }
    }
}
