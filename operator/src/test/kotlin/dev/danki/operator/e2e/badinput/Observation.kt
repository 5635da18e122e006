package dev.danki.operator.e2e.badinput

/** What the bad-input suite saw of one case's pod once it settled. */
data class Observation(
    val events: List<Pair<String, String>>,
    val runReason: String?,
    val runMessage: String?,
    val gateReason: String?,
    val gateStatus: String?,
    val ready: Boolean,
    /** From ContainersReady to Ready, seconds; null when the pod never became Ready. */
    val gatedSeconds: Double?,
    /** From ContainersReady to the first gate condition danki wrote (negative: decided before). */
    val decidedSeconds: Double?,
    /** The run took a warm-up slot: it has a queue wait or a k6 attempt. */
    val tookSlot: Boolean,
) {
    private fun hasEvent(expect: Expectation): Boolean {
        val reason = expect.eventReason ?: return true
        val text = expect.eventText ?: ""
        return events.any { (seen, message) -> seen == reason && message.contains(text) }
    }

    /** Where this observation differs from [expect]; empty when it matches. */
    fun mismatches(expect: Expectation): List<String> =
        buildList {
            if (!hasEvent(expect)) {
                add("no ${expect.eventReason} Event containing \"${expect.eventText}\" (seen: $events)")
            }
            if (runReason != expect.runReason) add("run reason $runReason, expected ${expect.runReason}")
            if (gateReason != expect.gateReason) add("gate reason $gateReason, expected ${expect.gateReason}")
            if (ready != expect.ready) add("Ready $ready, expected ${expect.ready}")
            if (expect.takesSlot != null && tookSlot != expect.takesSlot) {
                add(if (tookSlot) "took a warm-up slot, expected none" else "took no warm-up slot")
            }
            val bound = expect.maxDecidedSeconds
            if (bound != null && (decidedSeconds == null || decidedSeconds > bound)) {
                add("decided ${decidedSeconds ?: "never"} s after ContainersReady, at most $bound s expected")
            }
        }
}
