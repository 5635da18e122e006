package dev.danki.operator.warmup

/** What happens to a pod's gate when its warm-up fails for good. */
enum class FailurePolicy(
    val value: String,
) {
    /** Release the pod anyway (gate True, reason `WarmupFailedOpen`): availability over latency. */
    OPEN("open"),

    /** Keep the pod out of its Service (gate False, reason `WarmupFailed`). */
    CLOSED("closed"),
    ;

    companion object {
        fun parse(raw: String): FailurePolicy? = entries.firstOrNull { it.value == raw.trim().lowercase() }

        /** The policy a WarmupRun's spec recorded; open, the default, when it has none or one unknown here. */
        fun recorded(value: String?): FailurePolicy = parse(value ?: "") ?: OPEN
    }
}
