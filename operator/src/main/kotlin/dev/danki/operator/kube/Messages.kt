package dev.danki.operator.kube

import java.security.MessageDigest
import java.util.HexFormat

/**
 * Messages danki writes to conditions, Events and WarmupRuns are cut to [MAX_LENGTH] characters: a
 * message can quote a tenant's annotation, and a 200 KB annotation must not become a 200 KB Event,
 * condition or log line (docs/security.md).
 */
object Messages {
    /** Longest message danki writes; the cut one ends by saying how much was left out. */
    const val MAX_LENGTH = 1024

    /** Longest stretch of a tenant's value quoted inside a message. */
    const val MAX_QUOTE = 120

    fun cut(message: String): String {
        if (message.length <= MAX_LENGTH) return message
        // the suffix's own length depends on the count it states: size it for the longest count
        val kept = MAX_LENGTH - " ... (${message.length} more characters)".length
        return message.take(kept) + " ... (${message.length - kept} more characters)"
    }

    /** [value] as a message quotes it: whole when short, else its start and its size. */
    fun quote(value: String): String {
        val size = "(${value.length} characters)"
        return if (value.length <= MAX_QUOTE) value else "${value.take(MAX_QUOTE)}... $size"
    }

    /** A fixed-size stand-in for a message, for sets that remember which messages were written. */
    fun digest(message: String): String =
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(message.toByteArray()))
}
