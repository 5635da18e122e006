package dev.danki.operator.webhook

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo
import org.bouncycastle.asn1.x500.X500Name
import org.bouncycastle.asn1.x509.BasicConstraints
import org.bouncycastle.asn1.x509.ExtendedKeyUsage
import org.bouncycastle.asn1.x509.Extension
import org.bouncycastle.asn1.x509.GeneralName
import org.bouncycastle.asn1.x509.GeneralNames
import org.bouncycastle.asn1.x509.KeyPurposeId
import org.bouncycastle.asn1.x509.KeyUsage
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers
import org.bouncycastle.cert.X509v3CertificateBuilder
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder
import org.bouncycastle.openssl.PEMKeyPair
import org.bouncycastle.openssl.PEMParser
import org.bouncycastle.openssl.jcajce.JcaPEMWriter
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder
import org.bouncycastle.util.io.pem.PemObject
import java.io.StringReader
import java.io.StringWriter
import java.math.BigInteger
import java.net.Socket
import java.security.KeyFactory
import java.security.KeyPair
import java.security.KeyPairGenerator
import java.security.KeyStore
import java.security.Principal
import java.security.PrivateKey
import java.security.SecureRandom
import java.security.cert.CertificateFactory
import java.security.cert.X509Certificate
import java.security.spec.ECGenParameterSpec
import java.security.spec.PKCS8EncodedKeySpec
import java.time.Duration
import java.time.Instant
import java.util.Date
import java.util.concurrent.atomic.AtomicReference
import javax.net.ssl.SSLContext
import javax.net.ssl.SSLEngine
import javax.net.ssl.TrustManagerFactory
import javax.net.ssl.X509ExtendedKeyManager

/**
 * danki's own small PKI for the webhook, built with BouncyCastle: a CA, and serving certificates
 * it signs for the webhook Service's DNS names. EC P-256 keys: quick to make, accepted by Go's TLS.
 */
object Certificates {
    private val random = SecureRandom()

    /** A self-signed CA, valid from a minute ago (clock skew) for [validity]. */
    fun newCa(now: Instant, validity: Duration): KeyMaterial {
        val pair = keyPair()
        val name = X500Name("CN=danki-webhook-ca-${now.epochSecond}")
        val builder =
            builderOf(name, name, pair, now, validity)
                .addExtension(Extension.basicConstraints, true, BasicConstraints(0))
                .addExtension(Extension.keyUsage, true, KeyUsage(KeyUsage.keyCertSign or KeyUsage.cRLSign))
        return KeyMaterial(pair.private, sign(builder, pair.private))
    }

    /** A serving certificate for [dnsNames], signed by [ca] and never outliving it. */
    fun newServing(ca: KeyMaterial, dnsNames: List<String>, now: Instant, validity: Duration): KeyMaterial {
        val pair = keyPair()
        val until = minOf(now.plus(validity), ca.notAfter)
        val names = GeneralNames(dnsNames.map { GeneralName(GeneralName.dNSName, it) }.toTypedArray())
        val builder =
            builderOf(
                X500Name.getInstance(ca.certificate.subjectX500Principal.encoded),
                X500Name("CN=${dnsNames.first()}"),
                pair,
                now,
                Duration.between(now, until),
            ).addExtension(Extension.subjectAlternativeName, false, names)
                .addExtension(Extension.keyUsage, true, KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                .addExtension(
                    Extension.authorityKeyIdentifier,
                    false,
                    JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca.certificate),
                )
        return KeyMaterial(pair.private, sign(builder, ca.key))
    }

    /** The DNS names the API server may use for the Service: it dials `<service>.<namespace>.svc`. */
    fun serviceNames(service: String, namespace: String) =
        listOf("$service.$namespace.svc", "$service.$namespace.svc.cluster.local", "$service.$namespace", service)

    /** A certificate, or a private key as PKCS#8 (`PRIVATE KEY`, the JDK's own encoding), in PEM. */
    fun pem(value: Any): String {
        val pemObject = if (value is PrivateKey) PemObject("PRIVATE KEY", value.encoded) else value
        return StringWriter().also { out -> JcaPEMWriter(out).use { it.writeObject(pemObject) } }.toString()
    }

    /**
     * A TLS client context that trusts [anchor] and nothing else: danki's CA, or a served certificate
     * itself (the webhook's warm-up calling its own port).
     */
    fun clientTrusting(anchor: X509Certificate): SSLContext {
        val store = KeyStore.getInstance("PKCS12").apply { load(null, null) }
        store.setCertificateEntry("anchor", anchor)
        val trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm()).apply { init(store) }
        return SSLContext.getInstance("TLS").apply { init(null, trust.trustManagers, null) }
    }

    /** Every certificate in a PEM text (a caBundle holds one or two). */
    fun certificatesOf(pem: String): List<X509Certificate> =
        CertificateFactory.getInstance("X.509").generateCertificates(pem.byteInputStream()).map {
            it as X509Certificate
        }

    /** A private key from PEM: PKCS#8 (`PRIVATE KEY`, danki's), or PKCS#1 / SEC 1 as cert-manager may write. */
    fun privateKeyOf(pem: String): PrivateKey {
        val info =
            when (val parsed = PEMParser(StringReader(pem)).use { it.readObject() }) {
                is PEMKeyPair -> parsed.privateKeyInfo
                is PrivateKeyInfo -> parsed
                else -> throw IllegalArgumentException("no private key in PEM (${parsed?.javaClass?.simpleName})")
            }
        val algorithm = if (info.privateKeyAlgorithm.algorithm == X9ObjectIdentifiers.id_ecPublicKey) "EC" else "RSA"
        return KeyFactory.getInstance(algorithm).generatePrivate(PKCS8EncodedKeySpec(info.encoded))
    }

    private fun keyPair(): KeyPair =
        KeyPairGenerator
            .getInstance("EC")
            .apply { initialize(ECGenParameterSpec("secp256r1"), random) }
            .generateKeyPair()

    private fun builderOf(
        issuer: X500Name,
        subject: X500Name,
        pair: KeyPair,
        now: Instant,
        validity: Duration,
    ): X509v3CertificateBuilder =
        JcaX509v3CertificateBuilder(
            issuer,
            BigInteger(SERIAL_BITS, random),
            Date.from(now.minus(CLOCK_SKEW)),
            Date.from(now.plus(validity)),
            subject,
            pair.public,
        ).addExtension(
            Extension.subjectKeyIdentifier,
            false,
            JcaX509ExtensionUtils().createSubjectKeyIdentifier(pair.public),
        )

    private fun sign(builder: X509v3CertificateBuilder, key: PrivateKey): X509Certificate {
        val signer = JcaContentSignerBuilder("SHA256withECDSA").build(key)
        return JcaX509CertificateConverter().getCertificate(builder.build(signer))
    }

    private const val SERIAL_BITS = 64

    /** Back-dated a minute: a node whose clock runs behind must not see a certificate from the future. */
    private val CLOCK_SKEW: Duration = Duration.ofMinutes(1)
}

/** A private key and its certificate: the CA's, or the webhook's serving certificate. */
class KeyMaterial(
    val key: PrivateKey,
    val certificate: X509Certificate,
) {
    val notAfter: Instant get() = certificate.notAfter.toInstant()

    /** Two thirds of the lifetime have passed: time to renew, with a third left for every replica to reload. */
    fun dueForRenewal(now: Instant): Boolean {
        val notBefore = certificate.notBefore.toInstant()
        val lifetime = Duration.between(notBefore, notAfter)
        return now.isAfter(notBefore.plus(lifetime.multipliedBy(2).dividedBy(RENEW_DIVISOR)))
    }

    /** True when [issuer] signed this certificate. */
    fun signedBy(issuer: X509Certificate): Boolean = runCatching { certificate.verify(issuer.publicKey) }.isSuccess

    private companion object {
        const val RENEW_DIVISOR = 3L
    }
}

/**
 * The webhook's serving key and certificate chain, swappable while the server runs: each TLS handshake
 * reads the current pair, so a rotated certificate is served from the next connection on, no restart.
 */
class ServingKeys : X509ExtendedKeyManager() {
    private val current = AtomicReference<KeyMaterial?>(null)

    /** True once a certificate is loaded: until then the replica is not ready to admit pods. */
    fun loaded(): Boolean = current.get() != null

    /** The certificate served now, for comparisons and logs. */
    fun serving(): X509Certificate? = current.get()?.certificate

    fun load(serving: KeyMaterial) {
        current.set(serving)
    }

    override fun chooseEngineServerAlias(
        keyType: String?,
        issuers: Array<out Principal>?,
        engine: SSLEngine?,
    ): String? = aliasFor(keyType)

    override fun chooseServerAlias(keyType: String?, issuers: Array<out Principal>?, socket: Socket?): String? =
        aliasFor(keyType)

    override fun getCertificateChain(alias: String?): Array<X509Certificate>? =
        current.get()?.let {
            arrayOf(it.certificate)
        }

    override fun getPrivateKey(alias: String?): PrivateKey? = current.get()?.key

    override fun getServerAliases(keyType: String?, issuers: Array<out Principal>?): Array<String>? =
        aliasFor(keyType)?.let { arrayOf(it) }

    // the webhook is a server only
    override fun getClientAliases(keyType: String?, issuers: Array<out Principal>?): Array<String>? = null

    override fun chooseClientAlias(
        keyType: Array<out String>?,
        issuers: Array<out Principal>?,
        socket: Socket?,
    ): String? = null

    /** JSSE asks per key type (EC, RSA, ...): offer the key only for its own type. */
    private fun aliasFor(keyType: String?): String? {
        val key = current.get()?.key ?: return null
        return "webhook".takeIf { keyType == null || keyType.startsWith(key.algorithm) }
    }
}
