package dev.danki.operator.warmup

import java.time.Duration

/** Durations written as in Go and k6: `250ms`, `5s`, `5m`, `1m30s`, `1h`. */
object DurationFormat {
    private val PART = Regex("(\\d+(?:\\.\\d+)?)(ms|s|m|h)")
    private val WHOLE = Regex("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+")

    /** The parsed duration, or null when [text] is not in this format. */
    fun parse(text: String): Duration? {
        val trimmed = text.trim()
        if (!WHOLE.matches(trimmed)) return null
        var millis = 0.0
        for (match in PART.findAll(trimmed)) {
            val amount = match.groupValues[1].toDouble()
            millis += amount *
                when (match.groupValues[2]) {
                    "ms" -> 1.0
                    "s" -> MILLIS_PER_SECOND
                    "m" -> MILLIS_PER_MINUTE
                    else -> MILLIS_PER_HOUR
                }
        }
        return Duration.ofMillis(millis.toLong())
    }

    /** A short human form: `850ms`, `12.3s`, `4m05s`. */
    fun format(duration: Duration): String {
        val millis = duration.toMillis()
        return when {
            millis < MILLIS_PER_SECOND -> {
                "${millis}ms"
            }

            millis < MILLIS_PER_MINUTE -> {
                String.format(java.util.Locale.ROOT, "%.1fs", millis / MILLIS_PER_SECOND)
            }

            else -> {
                String.format(
                    java.util.Locale.ROOT,
                    "%dm%02ds",
                    millis / MILLIS_PER_MINUTE.toLong(),
                    (millis % MILLIS_PER_MINUTE.toLong()) / MILLIS_PER_SECOND.toLong(),
                )
            }
        }
    }

    private const val MILLIS_PER_SECOND = 1_000.0
    private const val MILLIS_PER_MINUTE = 60_000.0
    private const val MILLIS_PER_HOUR = 3_600_000.0
}
