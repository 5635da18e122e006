package dev.danki.operator.webhook

/** Where the webhook's serving certificate comes from; [check] renews or reloads it, and is called periodically. */
fun interface CertificateSource {
    fun check()
}
