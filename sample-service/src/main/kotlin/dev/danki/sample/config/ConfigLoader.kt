package dev.danki.sample.config

/**
 * Builds a [ServiceConfig] from the values in `application.yaml` with environment variables on top,
 * checking every setting and collecting every problem, so one start-up error names them all.
 */
object ConfigLoader {
    /** A YAML key under `danki.sample` and the environment variable that overrides it. */
    enum class Setting(
        val key: String,
        val envVar: String,
    ) {
        HOST("host", "HOST"),
        PORT("port", "PORT"),
        CALL_GROUP_SIZE("netty.callGroupSize", "CALL_GROUP_SIZE"),
        WORKER_GROUP_SIZE("netty.workerGroupSize", "WORKER_GROUP_SIZE"),
        RUNNING_LIMIT("netty.runningLimit", "RUNNING_LIMIT"),
        DATABASE_URL("database.url", "DATABASE_URL"),
        DATABASE_USER("database.user", "DATABASE_USER"),
        DATABASE_PASSWORD("database.password", "DATABASE_PASSWORD"),
        DB_POOL_SIZE("database.poolSize", "DB_POOL_SIZE"),
        GRPC_PORT("grpc.port", "GRPC_PORT"),
        AUTH_USERNAME("auth.username", "AUTH_USERNAME"),
        AUTH_PASSWORD("auth.password", "AUTH_PASSWORD"),
    }

    /** Largest thread pool we accept: more is a typo, not a tuning choice. */
    private const val MAX_THREADS = 1024
    private const val MAX_POOL_SIZE = 500
    private const val MAX_RUNNING_LIMIT = 10_000
    private const val MAX_PORT = 65_535

    /**
     * [yaml] holds the file's values by [Setting.key]; [env] is the process environment.
     * Returns the config, or a [ConfigException] listing every bad setting.
     */
    fun load(yaml: Map<String, String>, env: Map<String, String>): Result<ServiceConfig> {
        val errors = mutableListOf<String>()
        val reader = SettingReader(yaml, env, errors)
        val defaults = ServiceConfig()
        val config =
            ServiceConfig(
                host = reader.nonBlank(Setting.HOST) ?: defaults.host,
                port = reader.int(Setting.PORT, 1..MAX_PORT) ?: defaults.port,
                netty =
                    NettySettings(
                        callGroupSize = reader.int(Setting.CALL_GROUP_SIZE, 0..MAX_THREADS) ?: 0,
                        workerGroupSize = reader.int(Setting.WORKER_GROUP_SIZE, 0..MAX_THREADS) ?: 0,
                        runningLimit =
                            reader.int(Setting.RUNNING_LIMIT, 1..MAX_RUNNING_LIMIT)
                                ?: NettySettings.DEFAULT_RUNNING_LIMIT,
                    ),
                database =
                    DatabaseSettings(
                        url = reader.databaseUrl() ?: DatabaseSettings.DEFAULT_URL,
                        user = reader.raw(Setting.DATABASE_USER)?.value.orEmpty(),
                        password = reader.raw(Setting.DATABASE_PASSWORD)?.value.orEmpty(),
                        poolSize =
                            reader.int(Setting.DB_POOL_SIZE, 1..MAX_POOL_SIZE)
                                ?: DatabaseSettings.DEFAULT_POOL_SIZE,
                    ),
                grpcPort = reader.int(Setting.GRPC_PORT, 0..MAX_PORT) ?: defaults.grpcPort,
                auth =
                    AuthSettings(
                        username = reader.nonBlank(Setting.AUTH_USERNAME) ?: defaults.auth.username,
                        password = reader.nonBlank(Setting.AUTH_PASSWORD) ?: defaults.auth.password,
                    ),
            )
        if (config.grpcPort == config.port) errors += "GRPC_PORT=${config.grpcPort}: must differ from PORT"
        return if (errors.isEmpty()) Result.success(config) else Result.failure(ConfigException(errors))
    }
}

/** Bad configuration; [problems] holds one line per bad setting. */
class ConfigException(
    val problems: List<String>,
) : IllegalArgumentException(
        "invalid configuration (${problems.size} problem(s)):\n" + problems.joinToString("\n") { "  - $it" },
    )
