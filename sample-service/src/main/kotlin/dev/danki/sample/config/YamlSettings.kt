package dev.danki.sample.config

import io.ktor.server.config.ApplicationConfig
import io.ktor.server.config.yaml.YamlConfig

/** Reads the values of every [ConfigLoader.Setting] from `application.yaml` on the classpath. */
object YamlSettings {
    private const val PREFIX = "danki.sample"

    /** The file's values by setting key; empty when the file is missing. */
    fun read(resource: String = "application.yaml"): Map<String, String> {
        val config: ApplicationConfig = YamlConfig(resource) ?: return emptyMap()
        return ConfigLoader.Setting.entries
            .mapNotNull { setting ->
                config.propertyOrNull("$PREFIX.${setting.key}")?.getString()?.let { setting.key to it }
            }.toMap()
    }
}
