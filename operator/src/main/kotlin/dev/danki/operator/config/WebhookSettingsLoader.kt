package dev.danki.operator.config

import java.time.Duration

/**
 * Reads [WebhookSettings] from the environment for [ConfigLoader], adding every problem to [problems]
 * so the user still sees them all at once.
 */
class WebhookSettingsLoader(
    private val value: (String) -> String?,
    private val problems: MutableList<String>,
) {
    fun load(namespace: String): WebhookSettings {
        val certDir = value("DANKI_WEBHOOK_CERT_DIR")
        val secret = value("DANKI_WEBHOOK_SECRET")
        if (certDir == null && secret == null) {
            problems += "DANKI_GATE_INJECTION=webhook: set DANKI_WEBHOOK_SECRET (own certificates) or " +
                "DANKI_WEBHOOK_CERT_DIR (cert-manager's)"
        }
        val certValidity = duration("DANKI_WEBHOOK_CERT_VALIDITY", WebhookSettings.DEFAULT_CERT_VALIDITY)
        val caValidity = duration("DANKI_WEBHOOK_CA_VALIDITY", WebhookSettings.DEFAULT_CA_VALIDITY)
        // a serving certificate outliving its CA would be refused before its own renewal
        if (caValidity < certValidity) {
            problems += "DANKI_WEBHOOK_CA_VALIDITY must be at least DANKI_WEBHOOK_CERT_VALIDITY"
        }
        val port = value("DANKI_WEBHOOK_PORT")
        val parsedPort = port?.toIntOrNull()
        if (port != null && (parsedPort == null || parsedPort !in 1..ConfigLoader.MAX_PORT)) {
            problems += "DANKI_WEBHOOK_PORT=$port: expected a whole number from 1 to ${ConfigLoader.MAX_PORT}"
        }
        val timeout = value("DANKI_WEBHOOK_TIMEOUT_SECONDS")
        val timeoutSeconds = timeout?.toIntOrNull()
        if (timeout != null && (timeoutSeconds == null || timeoutSeconds !in 1..WebhookSettings.MAX_TIMEOUT_SECONDS)) {
            problems += "DANKI_WEBHOOK_TIMEOUT_SECONDS=$timeout: expected a whole number from 1 to " +
                "${WebhookSettings.MAX_TIMEOUT_SECONDS} (the webhook configuration's timeoutSeconds)"
        }
        return WebhookSettings(
            port = parsedPort ?: WebhookSettings.DEFAULT_PORT,
            serviceName = required("DANKI_WEBHOOK_SERVICE"),
            namespace = namespace,
            configurationName = required("DANKI_WEBHOOK_CONFIGURATION"),
            secretName = secret.takeIf { certDir == null },
            certDir = certDir,
            certValidity = certValidity,
            caValidity = caValidity,
            timeout = timeoutSeconds?.let { Duration.ofSeconds(it.toLong()) } ?: WebhookSettings.DEFAULT_TIMEOUT,
        )
    }

    private fun required(name: String): String {
        val found = value(name)
        if (found == null) problems += "$name: required with DANKI_GATE_INJECTION=webhook"
        return found.orEmpty()
    }

    private fun duration(name: String, default: Duration): Duration {
        val raw = value(name) ?: return default
        val match = DURATION.matchEntire(raw)
        val amount = match?.groupValues?.get(1)?.toLongOrNull()
        if (match == null || amount == null || amount < 1) {
            problems += "$name=$raw: expected a whole number with a unit s, m, h or d, e.g. 2160h"
            return default
        }
        val unit = match.groupValues[2]
        return when (unit) {
            "s" -> Duration.ofSeconds(amount)
            "m" -> Duration.ofMinutes(amount)
            "h" -> Duration.ofHours(amount)
            else -> Duration.ofDays(amount)
        }
    }

    private companion object {
        val DURATION = Regex("([0-9]{1,9})([smhd])")
    }
}
