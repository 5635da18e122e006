package dev.danki.sample.config

import dev.danki.sample.config.ConfigLoader.Setting

/** One setting's raw text and where it came from, so an error can say which to fix. */
internal data class RawValue(
    val value: String,
    val source: String,
)

/** Reads settings (environment first, then YAML) and appends a readable line to [errors] for each bad one. */
internal class SettingReader(
    private val yaml: Map<String, String>,
    private val env: Map<String, String>,
    private val errors: MutableList<String>,
) {
    fun raw(setting: Setting): RawValue? {
        env[setting.envVar]?.let { return RawValue(it, "env ${setting.envVar}") }
        return yaml[setting.key]?.let { RawValue(it, "application.yaml danki.sample.${setting.key}") }
    }

    fun nonBlank(setting: Setting): String? {
        val raw = raw(setting) ?: return null
        if (raw.value.isBlank()) {
            errors += "${raw.source}: must not be empty"
            return null
        }
        return raw.value.trim()
    }

    fun int(setting: Setting, range: IntRange): Int? {
        val raw = raw(setting) ?: return null
        val value = raw.value.trim().toIntOrNull()
        if (value == null || value !in range) {
            errors += "${raw.source}='${raw.value}': expected a whole number in ${range.first}..${range.last}"
            return null
        }
        return value
    }

    /** Accepts JDBC URLs for H2 and PostgreSQL, and libpq-style `postgresql://` URLs (turned into JDBC). */
    fun databaseUrl(): String? {
        val raw = raw(Setting.DATABASE_URL) ?: return null
        val url = raw.value.trim()
        val jdbc =
            when {
                url.startsWith("jdbc:h2:") || url.startsWith("jdbc:postgresql://") -> url
                url.startsWith("postgresql://") || url.startsWith("postgres://") -> libpqToJdbc(url)
                else -> null
            }
        if (jdbc == null) {
            errors += "${raw.source}='$url': expected jdbc:h2:..., jdbc:postgresql://... or postgresql://host:port/db"
        }
        return jdbc
    }

    /** `postgresql://user:pw@host:5432/db?x=y` becomes `jdbc:postgresql://host:5432/db?x=y&user=user&password=pw`. */
    private fun libpqToJdbc(url: String): String? {
        val match = LIBPQ_URL.matchEntire(url) ?: return null
        val (user, password, hostAndPath) = match.destructured
        val query = match.groupValues[QUERY_GROUP]
        val params =
            buildList {
                if (query.isNotEmpty()) add(query)
                if (user.isNotEmpty()) add("user=$user")
                if (password.isNotEmpty()) add("password=$password")
            }
        val suffix = if (params.isEmpty()) "" else "?" + params.joinToString("&")
        return "jdbc:postgresql://$hostAndPath$suffix"
    }

    private companion object {
        const val QUERY_GROUP = 4
        val LIBPQ_URL = Regex("""postgres(?:ql)?://(?:([^:@/]*)(?::([^@/]*))?@)?([^?]+)(?:\?(.*))?""")
    }
}
