package dev.danki.operator.webhook

import dev.danki.operator.config.WebhookSettings
import dev.danki.operator.kube.ApiStatus
import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.SecretBuilder
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Instant
import java.util.Base64

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
) : CertificateSource {
    private val log = LoggerFactory.getLogger(OwnCertificates::class.java)
    private val secretName = checkNotNull(settings.secretName) { "own certificates need a Secret name" }
    private val dnsNames = Certificates.serviceNames(settings.serviceName, settings.namespace)

    override fun check() {
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
        val stale = configuration.webhooks.filter { it.clientConfig?.caBundle != encoded }
        if (stale.isEmpty()) return
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
