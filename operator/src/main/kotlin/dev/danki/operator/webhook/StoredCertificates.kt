package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys.WebhookSecret
import java.security.cert.X509Certificate
import java.time.Duration
import java.time.Instant
import java.util.Base64

/**
 * The content of the webhook's Secret: danki's CA, the serving certificate it signed, and the CA before
 * the last CA rotation. [next] is the whole renewal rule, pure: what to store next, or null for no change.
 */
data class StoredCertificates(
    val ca: KeyMaterial,
    val serving: KeyMaterial,
    val previousCa: X509Certificate?,
) {
    /** What the API server must trust: the current CA, and the previous one while it has not expired. */
    fun caBundle(now: Instant): String =
        listOfNotNull(ca.certificate, previousCa?.takeIf { it.notAfter.toInstant().isAfter(now) })
            .joinToString("") { Certificates.pem(it) }

    fun toData(): Map<String, String> =
        mapOf(
            WebhookSecret.CA_CERT to Certificates.pem(ca.certificate),
            WebhookSecret.CA_KEY to Certificates.pem(ca.key),
            WebhookSecret.TLS_CERT to Certificates.pem(serving.certificate),
            WebhookSecret.TLS_KEY to Certificates.pem(serving.key),
        ).plus(previousCa?.let { mapOf(WebhookSecret.PREVIOUS_CA_CERT to Certificates.pem(it)) }.orEmpty())
            .mapValues { Base64.getEncoder().encodeToString(it.value.toByteArray()) }

    companion object {
        /** The certificates in a Secret's data, or null when any part is missing or unreadable. */
        fun of(data: Map<String, String>?): StoredCertificates? =
            runCatching {
                val text = data.orEmpty().mapValues { String(Base64.getDecoder().decode(it.value)) }
                StoredCertificates(
                    ca = pairOf(text, WebhookSecret.CA_KEY, WebhookSecret.CA_CERT) ?: return null,
                    serving = pairOf(text, WebhookSecret.TLS_KEY, WebhookSecret.TLS_CERT) ?: return null,
                    previousCa = text[WebhookSecret.PREVIOUS_CA_CERT]?.let { Certificates.certificatesOf(it).first() },
                )
            }.getOrNull()

        /**
         * The renewal rule. No CA (first start, or an unreadable Secret): a new CA and serving certificate.
         * A CA due for renewal: a new CA, kept beside the old one in the caBundle; the serving certificate
         * stays until the next check, so the API server knows the new CA before any replica serves it.
         * A serving certificate due, expired, or not signed by the current CA: a new one from the CA.
         */
        fun next(
            stored: StoredCertificates?,
            dnsNames: List<String>,
            now: Instant,
            certValidity: Duration,
            caValidity: Duration,
        ): StoredCertificates? {
            if (stored == null) {
                val ca = Certificates.newCa(now, caValidity)
                return StoredCertificates(ca, Certificates.newServing(ca, dnsNames, now, certValidity), null)
            }
            if (stored.ca.dueForRenewal(now)) {
                val ca = Certificates.newCa(now, caValidity)
                val serving =
                    stored.serving.takeIf { it.notAfter.isAfter(now) }
                        ?: Certificates.newServing(ca, dnsNames, now, certValidity)
                return StoredCertificates(ca, serving, stored.ca.certificate)
            }
            val serving = stored.serving
            val expired = !serving.notAfter.isAfter(now)
            if (serving.dueForRenewal(now) || expired || !serving.signedBy(stored.ca.certificate)) {
                return stored.copy(serving = Certificates.newServing(stored.ca, dnsNames, now, certValidity))
            }
            return null
        }

        private fun pairOf(text: Map<String, String>, key: String, cert: String): KeyMaterial? {
            val keyPem = text[key] ?: return null
            val certPem = text[cert] ?: return null
            return KeyMaterial(Certificates.privateKeyOf(keyPem), Certificates.certificatesOf(certPem).first())
        }
    }
}
