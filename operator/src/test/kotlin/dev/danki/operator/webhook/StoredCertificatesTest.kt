package dev.danki.operator.webhook

import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo
import org.bouncycastle.util.io.pem.PemObject
import org.junit.jupiter.api.Test
import java.security.interfaces.ECPrivateKey
import java.time.Duration
import java.time.Instant
import java.util.Base64
import org.bouncycastle.asn1.sec.ECPrivateKey as SecPrivateKey

class StoredCertificatesTest {
    private val names = Certificates.serviceNames("danki-webhook", "danki-system")
    private val cert = Duration.ofMinutes(30)
    private val ca = Duration.ofMinutes(90)
    private val t0 = Instant.parse("2026-11-23T10:00:00Z")

    private fun next(stored: StoredCertificates?, at: Instant) = StoredCertificates.next(stored, names, at, cert, ca)

    @Test
    fun `an empty Secret gets a CA and a serving certificate for the Service's names, signed by it`() {
        val first = next(null, t0).shouldNotBeNull()
        first.serving.signedBy(first.ca.certificate) shouldBe true
        first.serving.certificate.subjectAlternativeNames
            .map { it[1] } shouldBe names
        first.previousCa.shouldBeNull()
    }

    @Test
    fun `what is stored reads back the same through the Secret's data`() {
        val first = next(null, t0)!!
        val read = StoredCertificates.of(first.toData()).shouldNotBeNull()
        read.ca.certificate shouldBe first.ca.certificate
        read.serving.certificate shouldBe first.serving.certificate
        StoredCertificates.of(emptyMap()).shouldBeNull()
        StoredCertificates.of(mapOf("tls.crt" to "bm90IGEgY2VydA==")).shouldBeNull()
    }

    @Test
    fun `nothing changes before two thirds of the serving lifetime, then only the serving certificate`() {
        val first = next(null, t0)!!
        next(first, t0.plus(Duration.ofMinutes(15))).shouldBeNull()
        val renewed = next(first, t0.plus(Duration.ofMinutes(25))).shouldNotBeNull()
        renewed.ca.certificate shouldBe first.ca.certificate
        renewed.serving.certificate shouldNotBe first.serving.certificate
        renewed.serving.signedBy(first.ca.certificate) shouldBe true
    }

    @Test
    fun `a CA due keeps the old one in the bundle and the serving certificate until the next check`() {
        val first = next(null, t0)!!
        val at = t0.plus(Duration.ofMinutes(65))
        val serving = Certificates.newServing(first.ca, names, t0.plus(Duration.ofMinutes(55)), cert)
        val rotated = next(first.copy(serving = serving), at)!!
        rotated.ca.certificate shouldNotBe first.ca.certificate
        rotated.previousCa shouldBe first.ca.certificate
        Certificates.certificatesOf(rotated.caBundle(at)) shouldBe listOf(rotated.ca.certificate, first.ca.certificate)
        rotated.serving.certificate shouldBe serving.certificate
        // next check: the serving certificate is not the current CA's, so it is re-issued from it
        val reissued = next(rotated, at.plus(Duration.ofSeconds(10)))!!
        reissued.serving.signedBy(rotated.ca.certificate) shouldBe true
        reissued.previousCa shouldBe first.ca.certificate
    }

    @Test
    fun `a key is written as PKCS#8 and read back from it, or from SEC 1 as cert-manager may write it`() {
        val key = next(null, t0)!!.serving.key
        val pkcs8 = Certificates.pem(key)
        val body = Base64.getMimeEncoder(64, "\n".toByteArray()).encodeToString(key.encoded)
        pkcs8 shouldBe "-----BEGIN PRIVATE KEY-----\n$body\n-----END PRIVATE KEY-----\n"
        Certificates.privateKeyOf(pkcs8) shouldBe key
        // SEC 1 with the curve named inside, as Go's x509.MarshalECPrivateKey writes it
        val info = PrivateKeyInfo.getInstance(key.encoded)
        val s = (key as ECPrivateKey).s
        val sec1 = SecPrivateKey(256, s, info.privateKeyAlgorithm.parameters).encoded
        (Certificates.privateKeyOf(Certificates.pem(PemObject("EC PRIVATE KEY", sec1))) as ECPrivateKey).s shouldBe s
    }
}
