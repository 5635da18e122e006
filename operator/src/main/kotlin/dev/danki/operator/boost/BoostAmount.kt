package dev.danki.operator.boost

/**
 * The CPU a warmed container is boosted to, as its Deployment's `danki.dev/warmup-cpu` asks or, without
 * it, danki's default where the chart turns that on.
 */
sealed interface BoostAmount {
    /** The boost for a container whose own CPU limit is [limitMillis]. */
    fun millisFor(limitMillis: Long): Long

    /** In words, for the WarmupRun and Events. */
    fun describe(): String

    /** A CPU amount the Deployment names, e.g. `2` or `1500m`. */
    data class Fixed(
        val millis: Long,
    ) : BoostAmount {
        override fun millisFor(limitMillis: Long) = millis

        override fun describe() = CpuQuantity.format(millis)
    }

    /**
     * The default ([JvmThreads.sizedBoostMillis]): what the container's JVM can run at once. Never given to
     * a Guaranteed pod: its request would rise with the limit, and the scheduler would have to fit that.
     */
    data object JvmSized : BoostAmount {
        override fun millisFor(limitMillis: Long) = JvmThreads.sizedBoostMillis(limitMillis)

        override fun describe() = "the JVM's size"
    }
}
