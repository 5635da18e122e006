package dev.danki.sample.db

/** Runs `SELECT pg_sleep(:seconds)`: a query that holds its connection and calling thread. */
class SleepQuery(
    private val database: Database,
) {
    /** Blocks the calling thread for [seconds] inside the database. */
    fun sleep(seconds: Double) {
        database.jdbi.useHandle<Exception> { handle ->
            // pg_sleep returns void; list() tolerates the single null row that one() would reject
            handle
                .createQuery("SELECT pg_sleep(:seconds)")
                .bind("seconds", seconds)
                .mapTo(String::class.java)
                .list()
        }
    }
}
