package dev.danki.sample.it

import dev.danki.sample.config.ConfigLoader

/** The PostgreSQL the *IT suites run against, from DATABASE_URL (`make test-it-sample` starts one). */
object PostgresUrl {
    /** The JDBC URL; fails the test with the way to fix it when DATABASE_URL is not a PostgreSQL URL. */
    fun require(): String {
        val raw = System.getenv("DATABASE_URL")
        check(!raw.isNullOrBlank()) { "DATABASE_URL is not set: run the *IT suites with `make test-it-sample`" }
        val url =
            ConfigLoader
                .load(emptyMap(), mapOf("DATABASE_URL" to raw))
                .getOrThrow()
                .database.url
        check(
            url.startsWith("jdbc:postgresql:"),
        ) { "DATABASE_URL=$raw is not PostgreSQL: the *IT suites prove behaviour on real PostgreSQL" }
        return url
    }
}
