package dev.danki.operator.config

/** Thrown when the environment holds invalid settings; the message lists every problem. */
class ConfigException(
    val problems: List<String>,
) : IllegalArgumentException("invalid operator configuration:\n" + problems.joinToString("\n") { "  - $it" })
