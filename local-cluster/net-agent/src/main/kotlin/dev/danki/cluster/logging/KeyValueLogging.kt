package dev.danki.cluster.logging

import org.slf4j.Logger
import org.slf4j.event.Level

/** Logs a fixed [message] with structured key-values (SLF4J 2 fluent API); logback prints them via `%kvp`. */
fun Logger.event(level: Level, message: String, fields: List<Pair<String, Any?>>, error: Throwable? = null) {
    var builder = atLevel(level).setMessage(message)
    fields.forEach { (key, value) -> builder = builder.addKeyValue(key, value) }
    if (error != null) builder = builder.setCause(error)
    builder.log()
}

/** [event] at INFO. */
fun Logger.infoWith(message: String, vararg fields: Pair<String, Any?>) = event(Level.INFO, message, fields.toList())

/** [event] at INFO, with fields built as a list (common fields plus extra ones). */
fun Logger.infoWith(message: String, fields: List<Pair<String, Any?>>) = event(Level.INFO, message, fields)

/** [event] at WARN, the exception last. */
fun Logger.warnWith(message: String, vararg fields: Pair<String, Any?>, error: Throwable? = null) =
    event(Level.WARN, message, fields.toList(), error)

/** [event] at WARN with fields built as a list, the exception last. */
fun Logger.warnWith(message: String, fields: List<Pair<String, Any?>>, error: Throwable? = null) =
    event(Level.WARN, message, fields, error)
