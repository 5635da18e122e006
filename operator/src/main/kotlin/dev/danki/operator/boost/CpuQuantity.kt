package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Quantity
import java.math.RoundingMode

/**
 * A CPU amount in millicores, as Kubernetes writes it: `1`, `1.5`, `1500m`. Only the forms a CPU
 * limit takes; no exponents, no other suffixes, so a tenant's annotation cannot smuggle in odd values.
 */
object CpuQuantity {
    private val CORES = Regex("(\\d{1,3})(?:\\.(\\d{1,3}))?")
    private val MILLIS = Regex("(\\d{1,6})m")

    /** Millicores of [raw], or null when it is not a plain CPU quantity. */
    fun parseMillis(raw: String): Long? {
        val text = raw.trim()
        MILLIS.matchEntire(text)?.let { return it.groupValues[1].toLong() }
        val cores = CORES.matchEntire(text) ?: return null
        val fraction = cores.groupValues[2].padEnd(FRACTION_DIGITS, '0')
        return cores.groupValues[1].toLong() * MILLIS_PER_CORE + fraction.toLong()
    }

    /**
     * Millicores of a quantity the API server returned (a container's limit), which may use any of
     * Kubernetes' forms; null when it has none.
     */
    fun millisOf(quantity: Quantity?): Long? =
        quantity?.let {
            Quantity
                .getAmountInBytes(it)
                .movePointRight(MILLI_DIGITS)
                .setScale(0, RoundingMode.CEILING)
                .toLong()
        }

    /** The canonical form: whole cores as `2`, anything else as `1500m`. */
    fun format(millis: Long): String =
        if (millis % MILLIS_PER_CORE ==
            0L
        ) {
            "${millis / MILLIS_PER_CORE}"
        } else {
            "${millis}m"
        }

    private const val MILLIS_PER_CORE = 1_000L
    private const val FRACTION_DIGITS = 3
    private const val MILLI_DIGITS = 3
}
