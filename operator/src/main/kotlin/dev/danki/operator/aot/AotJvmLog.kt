package dev.danki.operator.aot

/**
 * Reads, in the head of a JVM's log, whether it refused its AOT cache. A JDK 25 JVM that cannot use the
 * cache says so at the default log level before anything else:
 * ```
 * [0.012s][warning][aot] Unable to use AOT cache.
 * [0.012s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
 * [0.012s][error  ][aot] Loading static archive failed.
 * ```
 * and a JVM that maps it says nothing at that level. Other `[warning][aot]` lines (`Preload Warning:
 * Verification failed for ...`, `Skipping ...: Unsupported location`) come from a JVM that did use it.
 * The log is the tenant's output: whatever is quoted from it is stripped of control characters and cut.
 */
object AotJvmLog {
    /** Longest reason quoted from the log. */
    const val MAX_REASON = 200

    /** The decorations in front (uptime, time, pid...: any), then the level (padded) and the `aot` tag. */
    private val LINE = Regex("""^(?:\[[^\[\]]*])*?\[(warning|error)\s*]\[aot\s*] ?(.*)$""")

    private const val UNABLE = "Unable to use AOT cache"

    /** The line that only says to run with `-Xlog:aot`, which the pod's owner cannot act on as a reason. */
    private const val GENERIC = "An error has occurred while processing the AOT cache"

    private const val NO_DETAIL = "the JVM refused the cache"

    /** Control, format (bidi overrides) and line-separator characters: nothing a reason needs. */
    private val UNPRINTABLE = Regex("[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]")

    /** Why the JVM refused its cache, from [head] of its log; null when it did not refuse it. */
    fun refusal(head: String): String? {
        val refusals =
            head
                .lineSequence()
                .mapNotNull { LINE.matchEntire(it.trimEnd('\r'))?.destructured }
                .filter { (level, message) -> level == "error" || message.startsWith(UNABLE) }
                .map { (_, message) -> message }
                .toList()
        if (refusals.isEmpty()) return null
        val reasons =
            refusals
                .filterNot { it.startsWith(GENERIC) }
                .map { clean(it).trim() }
                .filter { it.isNotEmpty() }
                .distinct()
        return cut(reasons.joinToString("; ").ifEmpty { NO_DETAIL })
    }

    /** [text] without the characters a log line, an Event or a terminal could be tricked by. */
    fun clean(text: String): String = UNPRINTABLE.replace(text, "")

    /** [text] cut to [MAX_REASON] characters, never between the halves of a surrogate pair. */
    fun cut(text: String): String {
        if (text.length <= MAX_REASON) return text
        val end = if (text[MAX_REASON - 1].isHighSurrogate()) MAX_REASON - 1 else MAX_REASON
        return text.substring(0, end)
    }
}
