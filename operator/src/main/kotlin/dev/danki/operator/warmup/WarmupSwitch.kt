package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.Annotations
import io.fabric8.kubernetes.api.model.apps.Deployment

/**
 * Whether a Deployment asks for warm-up: its `danki.dev/warmup` annotation (on, explicitly off, absent, or
 * a value danki does not know), or, without one, its namespace's opt-in label.
 */
enum class WarmupSwitch {
    ENABLED,
    DISABLED,
    ABSENT,

    /** Neither `enabled` nor `disabled`: a Warning Event, the template is left as it is, gated pods fail by policy. */
    INVALID,
    ;

    companion object {
        fun of(annotations: Map<String, String>?): WarmupSwitch =
            when (annotations?.get(Annotations.WARMUP)) {
                null -> ABSENT
                Annotations.ENABLED -> ENABLED
                Annotations.DISABLED -> DISABLED
                else -> INVALID
            }

        /**
         * The switch of [deployment] in a namespace with [namespaceLabels]. Its own annotation wins, so
         * `disabled` keeps one Deployment out of an opted-in namespace; without one, the namespace label
         * `danki.dev/warmup=enabled` turns it on. Only webhook mode caches namespaces (template mode would
         * roll every Deployment of the namespace), so there the labels are empty and the annotation decides.
         */
        fun of(deployment: Deployment?, namespaceLabels: Map<String, String>): WarmupSwitch {
            val own = of(deployment?.metadata?.annotations)
            val namespaceOn = namespaceLabels[Keys.NAMESPACE_OPT_IN_LABEL] == Keys.WARMUP_LABEL_VALUE
            return if (own == ABSENT && deployment != null && namespaceOn) ENABLED else own
        }
    }
}
