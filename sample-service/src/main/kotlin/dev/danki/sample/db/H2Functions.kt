package dev.danki.sample.db

/** Java-callable functions that H2 exposes through `CREATE ALIAS`, to behave like PostgreSQL. */
object H2Functions {
    private const val MILLIS_PER_SECOND = 1000.0

    /** Like PostgreSQL's `pg_sleep`: blocks the thread that runs the query for [seconds]. */
    @JvmStatic
    fun pgSleep(seconds: Double) {
        Thread.sleep((seconds * MILLIS_PER_SECOND).toLong())
    }
}
