package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys.Annotations

/** The `danki.dev/warmup` annotation of a Deployment: on, explicitly off, absent, or a value danki does not know. */
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
    }
}
