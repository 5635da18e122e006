package dev.danki.sample.config

/** Everything the service reads at start-up, validated; see `application.yaml` for each key. */
data class ServiceConfig(
    /** Interface to listen on, e.g. `0.0.0.0`. */
    val host: String = DEFAULT_HOST,
    /** TCP port, 1..65535. */
    val port: Int = DEFAULT_PORT,
    /** Netty thread pools and per-connection limits. */
    val netty: NettySettings = NettySettings(),
    /** Where submissions are stored and `pg_sleep` runs. */
    val database: DatabaseSettings = DatabaseSettings(),
    /** Port of the gRPC exam service, on [host]; 0 serves no gRPC. */
    val grpcPort: Int = DEFAULT_GRPC_PORT,
    /** The one account `POST /auth/login` accepts. */
    val auth: AuthSettings = AuthSettings(),
) {
    companion object {
        const val DEFAULT_HOST = "0.0.0.0"
        const val DEFAULT_PORT = 8080
        const val DEFAULT_GRPC_PORT = 9090
    }
}

/** The demo account behind `POST /auth/login`: a sample, not a user store. */
data class AuthSettings(
    val username: String = DEFAULT_USERNAME,
    val password: String = DEFAULT_PASSWORD,
) {
    /** Never prints the password. */
    override fun toString() = "AuthSettings(username=$username, password=***)"

    companion object {
        const val DEFAULT_USERNAME = "demo"
        const val DEFAULT_PASSWORD = "demo-password"
    }
}

/** Netty engine sizes; a size of 0 keeps Ktor's default (derived from the CPU count). */
data class NettySettings(
    /** Threads that run request handlers: a blocking handler holds one of these. */
    val callGroupSize: Int = 0,
    /** Threads that do socket I/O. */
    val workerGroupSize: Int = 0,
    /** Requests that may run at once on one HTTP/1.1 connection. */
    val runningLimit: Int = DEFAULT_RUNNING_LIMIT,
) {
    companion object {
        /** Ktor's own default. */
        const val DEFAULT_RUNNING_LIMIT = 32
    }
}

/** Database connection settings. */
data class DatabaseSettings(
    /** JDBC URL: `jdbc:h2:...` (embedded default) or `jdbc:postgresql://...`. */
    val url: String = DEFAULT_URL,
    /** User name, or empty to take it from the URL. */
    val user: String = "",
    /** Password, or empty. */
    val password: String = "",
    /** Largest number of pooled connections. */
    val poolSize: Int = DEFAULT_POOL_SIZE,
) {
    /** True when [url] points at a real PostgreSQL server. */
    val isPostgres: Boolean get() = url.startsWith("jdbc:postgresql:")

    /** The URL with any password parameter masked, for logs. */
    val redactedUrl: String get() = url.replace(Regex("(?i)(password=)[^&;]*"), "$1***")

    companion object {
        /** In-memory H2 that speaks enough PostgreSQL for our queries and lives as long as the JVM. */
        const val DEFAULT_URL = "jdbc:h2:mem:danki;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1"

        /** Enough for the experiments' 64 parallel blocking queries to queue only briefly. */
        const val DEFAULT_POOL_SIZE = 16
    }
}
