package dev.danki.operator.webhook

import dev.danki.operator.kube.Keys.WebhookSecret
import org.slf4j.LoggerFactory
import java.io.File

/**
 * A serving certificate someone else issues and renews (cert-manager, which also injects the caBundle):
 * the files of its Secret, mounted in [dir], are reloaded when the kubelet updates them.
 */
class MountedCertificates(
    private val dir: String,
    private val keys: ServingKeys,
) : CertificateSource {
    private val log = LoggerFactory.getLogger(MountedCertificates::class.java)

    override fun check() {
        val cert = Certificates.certificatesOf(File(dir, WebhookSecret.TLS_CERT).readText()).first()
        if (cert == keys.serving()) return
        val key = Certificates.privateKeyOf(File(dir, WebhookSecret.TLS_KEY).readText())
        keys.load(KeyMaterial(key, cert))
        log.atInfo().addKeyValue("notAfter", cert.notAfter.toInstant()).log("webhook certificate loaded")
    }
}
