package dev.danki.operator.webhook

import java.security.PrivateKey
import java.security.cert.X509Certificate
import java.time.Duration
import java.time.Instant

/** A private key and its certificate: the CA's, or the webhook's serving certificate. */
class KeyMaterial(
    val key: PrivateKey,
    val certificate: X509Certificate,
) {
    val notBefore: Instant get() = certificate.notBefore.toInstant()
    val notAfter: Instant get() = certificate.notAfter.toInstant()

    /** Two thirds of the lifetime have passed: time to renew, with a third left for every replica to reload. */
    fun dueForRenewal(now: Instant): Boolean {
        val lifetime = Duration.between(notBefore, notAfter)
        return now.isAfter(notBefore.plus(lifetime.multipliedBy(2).dividedBy(RENEW_DIVISOR)))
    }

    /** True when [issuer] signed this certificate. */
    fun signedBy(issuer: X509Certificate): Boolean = runCatching { certificate.verify(issuer.publicKey) }.isSuccess

    private companion object {
        const val RENEW_DIVISOR = 3L
    }
}
