package dev.danki.operator.aot

import dev.danki.operator.kube.Keys

/**
 * What a pod's JVM made of the AOT cache it was given: [kind] is [Keys.Aot.USED], [Keys.Aot.ABSENT],
 * [Keys.Aot.REJECTED] or [UNKNOWN]; [reason] says why for all but `used`. Its text form, as a WarmupRun's
 * `status.aotCache` shows it, is `used` or `<kind> (<reason>)`.
 */
data class AotOutcome(
    val kind: String,
    val reason: String? = null,
) {
    override fun toString(): String = if (reason == null) kind else "$kind ($reason)"

    companion object {
        /** The JVM's log could not be read, so whether it mapped the cache is not known. */
        const val UNKNOWN = "unknown"

        val USED = AotOutcome(Keys.Aot.USED)

        fun absent(reason: String) = AotOutcome(Keys.Aot.ABSENT, reason)

        fun rejected(reason: String) = AotOutcome(Keys.Aot.REJECTED, reason)

        fun unknown(reason: String) = AotOutcome(UNKNOWN, reason)
    }
}
