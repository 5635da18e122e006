package dev.danki.operator.config

import java.time.Duration

/** The admission webhook's settings (gate injection `webhook`), read by [ConfigLoader]. */
data class WebhookSettings(
    /** HTTPS port the webhook listens on; the chart's webhook Service targets it. */
    val port: Int = DEFAULT_PORT,
    /** Name of the webhook Service: the serving certificate is made out to its DNS names. */
    val serviceName: String,
    /** The operator's own namespace: where the Service and the certificate Secret are. */
    val namespace: String,
    /** The MutatingWebhookConfiguration whose caBundle danki keeps current (own certificates only). */
    val configurationName: String,
    /** The Secret holding danki's own CA and serving certificate; null when [certDir] is used. */
    val secretName: String?,
    /** A directory with `tls.crt` and `tls.key` written by someone else (cert-manager); null: own certificates. */
    val certDir: String?,
    /** Lifetime of a serving certificate; it is renewed once two thirds of it have passed. */
    val certValidity: Duration = DEFAULT_CERT_VALIDITY,
    /** Lifetime of danki's CA; renewed likewise, the previous CA stays in the caBundle meanwhile. */
    val caValidity: Duration = DEFAULT_CA_VALIDITY,
    /** How long the API server waits for the webhook (the webhook configuration's timeoutSeconds). */
    val timeout: Duration = DEFAULT_TIMEOUT,
) {
    /**
     * How long the webhook may read past its cache for one pod: half of [timeout], so the read, the
     * API server's round trip and TLS stay inside it even on a loaded API server, where a read that
     * takes a few milliseconds otherwise can take a second (seen with 30 Deployments created at once
     * on 2 cores).
     */
    val readBudget: Duration
        get() = timeout.dividedBy(READ_SHARE)

    /** How often the certificates are checked (and reloaded): often enough to renew well before expiry. */
    val checkEvery: Duration
        get() = minOf(MAX_CHECK_EVERY, certValidity.dividedBy(CHECKS_PER_LIFETIME))

    companion object {
        const val DEFAULT_PORT = 9443
        val DEFAULT_TIMEOUT: Duration = Duration.ofSeconds(10)
        const val MAX_TIMEOUT_SECONDS = 30
        private const val READ_SHARE = 2L
        val DEFAULT_CERT_VALIDITY: Duration = Duration.ofDays(90)
        val DEFAULT_CA_VALIDITY: Duration = Duration.ofDays(5 * 365)

        /** A replica sees a rotation by another within this; short against any sensible validity. */
        val MAX_CHECK_EVERY: Duration = Duration.ofMinutes(1)

        /** Six looks per lifetime: between renewal (at 2/3) and expiry, every replica reloads at least once. */
        private const val CHECKS_PER_LIFETIME = 6L
    }
}
