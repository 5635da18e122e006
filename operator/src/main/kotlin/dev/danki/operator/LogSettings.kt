package dev.danki.operator

import dev.danki.operator.config.OperatorConfig

/**
 * Hands the validated log settings to logback.xml as system properties. The environment variable
 * itself is accepted in any case (`JSON`), but logback's appender-ref is case-sensitive; the property
 * carries the appender's own lower-case name.
 */
object LogSettings {
    const val FORMAT_PROPERTY = "danki.log.format"

    fun apply(config: OperatorConfig) {
        System.setProperty(FORMAT_PROPERTY, appenderOf(config.logFormat))
    }

    /** The name of the appender in logback.xml for [format]. */
    fun appenderOf(format: OperatorConfig.LogFormat): String = format.name.lowercase()
}
