package dev.danki.operator.warmup

import java.time.Duration
import java.util.Locale

/** Durations written as in Go and k6: `250ms`, `5s`, `5m`, `1m30s`, `1h`. */
object DurationFormat {
    private const val MILLIS_PER_SECOND = 1_000.0
    private const val MILLIS_PER_MINUTE = 60_000.0
    private val PART = Regex("(\\d+(?:\\.\\d+)?)(ms|s|m|h)")
    private val WHOLE = Regex("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+")
    private val MILLIS_PER_UNIT =
        mapOf(
            "ms" to 1.0,
            "s" to MILLIS_PER_SECOND,
            "m" to MILLIS_PER_MINUTE,
            "h" to 3_600_000.0,
        )

    /** The parsed duration, or null when [text] is not in this format. */
    fun parse(text: String): Duration? {
        val trimmed = text.trim()
        if (!WHOLE.matches(trimmed)) return null
        val millis =
            PART.findAll(trimmed).sumOf {
                it.groupValues[1].toDouble() *
                    MILLIS_PER_UNIT.getValue(it.groupValues[2])
            }
        return Duration.ofMillis(millis.toLong())
    }

    /** A short human form: `850ms`, `12.3s`, `4m05s`. */
    fun format(duration: Duration): String {
        val millis = duration.toMillis()
        return when {
            millis < MILLIS_PER_SECOND -> "${millis}ms"
            millis < MILLIS_PER_MINUTE -> String.format(Locale.ROOT, "%.1fs", millis / MILLIS_PER_SECOND)
            else -> String.format(Locale.ROOT, "%dm%02ds", duration.toMinutes(), duration.toSecondsPart())
        }
    }
}
