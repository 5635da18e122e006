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
    }
}
