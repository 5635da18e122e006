package dev.danki.operator.webhook

import dev.danki.operator.config.WebhookSettings
import dev.danki.operator.kube.ApiStatus
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Keys.WebhookSecret
import io.fabric8.kubernetes.api.model.SecretBuilder
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.io.File
import java.security.cert.X509Certificate
import java.time.Duration
import java.time.Instant
import java.util.Base64
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit

/**
 * Runs [check] (renew or reload the serving certificate: [OwnCertificates.check] or
 * [MountedCertificates.check]) at start and then every [every] on a thread of its own; after [retry]
 * instead while no certificate is loaded yet (a replica without one is not ready) or after a failed check.
 */
class CertificateRotation(
    private val check: () -> Unit,
    private val keys: ServingKeys,
    private val every: Duration,
    private val retry: Duration = RETRY,
) {
    private val log = LoggerFactory.getLogger(CertificateRotation::class.java)
    private val scheduler: ScheduledExecutorService =
        Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "webhook-certificates").apply { isDaemon = true } }

    fun start() {
        scheduler.execute(::checkAndReschedule)
    }

    fun stop() {
        scheduler.shutdownNow()
    }

    private fun checkAndReschedule() {
        val ok =
            try {
                check()
                true
            } catch (
                @Suppress("TooGenericExceptionCaught") e: Throwable,
            ) {
                // The worker boundary: a failed check (API server away, Secret missing) is tried again soon.
                // Errors too: one thrown here would end the loop unseen, and the replica would serve its
                // certificate until it expired.
                log.atWarn().setCause(e).log("webhook certificate check failed")
                false
            }
        val delay = if (ok && keys.loaded()) every else minOf(every, retry)
        if (!scheduler.isShutdown) scheduler.schedule(::checkAndReschedule, delay.toMillis(), TimeUnit.MILLISECONDS)
    }

    private companion object {
        /** Soon enough that a new replica becomes ready within seconds, rare enough not to load the API server. */
        val RETRY: Duration = Duration.ofSeconds(2)
    }
}

/**
 * A serving certificate someone else issues and renews (cert-manager, which also injects the caBundle):
 * the files of its Secret, mounted in [dir], are reloaded when the kubelet updates them.
 */
class MountedCertificates(
    private val dir: String,
    private val keys: ServingKeys,
) {
    private val log = LoggerFactory.getLogger(MountedCertificates::class.java)

    fun check() {
        val cert = Certificates.certificatesOf(File(dir, WebhookSecret.TLS_CERT).readText()).first()
        if (cert == keys.serving()) return
        val key = Certificates.privateKeyOf(File(dir, WebhookSecret.TLS_KEY).readText())
        keys.load(KeyMaterial(key, cert))
        log.atInfo().addKeyValue("notAfter", cert.notAfter.toInstant()).log("webhook certificate loaded")
    }
}

/**
 * danki's own certificates: kept in the Secret the chart creates (read and updated by name only), the
 * CA published as the MutatingWebhookConfiguration's caBundle, the serving certificate loaded into
 * [keys]. Every replica runs the same check; the Secret's resourceVersion makes one of them win a
 * renewal, and the others load its result.
 */
class OwnCertificates(
    private val client: KubernetesClient,
    private val settings: WebhookSettings,
    private val keys: ServingKeys,
    private val now: () -> Instant = Instant::now,
) {
    private val log = LoggerFactory.getLogger(OwnCertificates::class.java)
    private val secretName = checkNotNull(settings.secretName) { "own certificates need a Secret name" }
    private val dnsNames = Certificates.serviceNames(settings.serviceName, settings.namespace)

    fun check() {
        val secrets = client.secrets().inNamespace(settings.namespace)
        val secret =
            checkNotNull(secrets.withName(secretName).get()) {
                "Secret ${settings.namespace}/$secretName is missing (the chart creates it)"
            }
        val stored = StoredCertificates.of(secret.data)
        val at = now()
        val next = StoredCertificates.next(stored, dnsNames, at, settings.certValidity, settings.caValidity)
        val current =
            if (next == null) {
                checkNotNull(stored)
            } else {
                val updated = SecretBuilder(secret).withData<String, String>(next.toData()).build()
                try {
                    // resourceVersion of what was read: a replica that renewed first wins, this one reads it next time
                    secrets.resource(updated).update()
                } catch (e: KubernetesClientException) {
                    if (e.code == ApiStatus.CONFLICT) return
                    throw e
                }
                log
                    .atInfo()
                    .addKeyValue("secret", secretName)
                    .addKeyValue("servingNotAfter", next.serving.notAfter)
                    .addKeyValue("caNotAfter", next.ca.notAfter)
                    .log("webhook certificates renewed")
                next
            }
        // the API server must trust the CA before this replica serves a certificate it signed
        publishCaBundle(current.caBundle(at))
        if (keys.serving() != current.serving.certificate) keys.load(current.serving)
    }

    private fun publishCaBundle(bundle: String) {
        val configurations = client.admissionRegistration().v1().mutatingWebhookConfigurations()
        val configuration =
            checkNotNull(configurations.withName(settings.configurationName).get()) {
                "MutatingWebhookConfiguration ${settings.configurationName} is missing (the chart creates it)"
            }
        val encoded = Base64.getEncoder().encodeToString(bundle.toByteArray())
        if (configuration.webhooks.all { it.clientConfig?.caBundle == encoded }) return
        // only each webhook's caBundle: the chart owns the rest of every entry (a list keyed by name)
        val caBundles =
            MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(settings.configurationName)
                .endMetadata()
                .withWebhooks(
                    configuration.webhooks.map {
                        MutatingWebhookBuilder()
                            .withName(it.name)
                            .withNewClientConfig()
                            .withCaBundle(encoded)
                            .endClientConfig()
                            .build()
                    },
                ).build()
        client
            .resource(caBundles)
            .fieldManager(Keys.FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply()
        log.atInfo().addKeyValue("configuration", settings.configurationName).log("webhook caBundle published")
    }
}

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
        listOfNotNull(
            WebhookSecret.CA_CERT to ca.certificate,
            WebhookSecret.CA_KEY to ca.key,
            WebhookSecret.TLS_CERT to serving.certificate,
            WebhookSecret.TLS_KEY to serving.key,
            previousCa?.let { WebhookSecret.PREVIOUS_CA_CERT to it },
        ).associate { (name, value) ->
            name to Base64.getEncoder().encodeToString(Certificates.pem(value).toByteArray())
        }

    companion object {
        /** The certificates in a Secret's data, or null when any part is missing or unreadable. */
        fun of(data: Map<String, String>?): StoredCertificates? =
            runCatching {
                val text = data.orEmpty().mapValues { String(Base64.getDecoder().decode(it.value)) }

                fun pair(key: String, cert: String) =
                    KeyMaterial(
                        Certificates.privateKeyOf(text.getValue(key)),
                        Certificates.certificatesOf(text.getValue(cert)).first(),
                    )
                StoredCertificates(
                    ca = pair(WebhookSecret.CA_KEY, WebhookSecret.CA_CERT),
                    serving = pair(WebhookSecret.TLS_KEY, WebhookSecret.TLS_CERT),
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
    }
}
