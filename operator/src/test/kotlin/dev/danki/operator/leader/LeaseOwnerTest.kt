package dev.danki.operator.leader

import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path
import java.util.Base64

class LeaseOwnerTest {
    /** The `kubernetes.io` claims of a bound token, as the API server's TokenRequest writes them. */
    private val boundClaims =
        """
        {"aud":["https://kubernetes.default.svc"],"sub":"system:serviceaccount:danki-system:danki",
         "kubernetes.io":{"namespace":"danki-system",
           "pod":{"name":"danki-7f9c-abcde","uid":"0b3c2f7e-pod"},
           "serviceaccount":{"name":"danki","uid":"5e1d3c0a-sa"}}}
        """.trimIndent()

    private fun jwt(payload: String): String {
        val encode = { s: String -> Base64.getUrlEncoder().withoutPadding().encodeToString(s.toByteArray()) }
        return "${encode("""{"alg":"RS256"}""")}.${encode(payload)}.signature"
    }

    @Test
    fun `a bound token names the ServiceAccount that owns the Lease`() {
        val owner = LeaseOwner.fromClaims(boundClaims, "danki-system").shouldNotBeNull()
        owner.apiVersion shouldBe "v1"
        owner.kind shouldBe "ServiceAccount"
        owner.name shouldBe "danki"
        owner.uid shouldBe "5e1d3c0a-sa"
    }

    @Test
    fun `a Lease in another namespace than the ServiceAccount gets no owner`() {
        LeaseOwner.fromClaims(boundClaims, "elsewhere") shouldBe null
    }

    @Test
    fun `a legacy token without kubernetes_io claims gets no owner`() {
        LeaseOwner.fromClaims("""{"sub":"system:serviceaccount:danki-system:danki"}""", "danki-system") shouldBe null
    }

    @Test
    fun `the token file is read and decoded`(
        @TempDir dir: Path,
    ) {
        val token = dir.resolve("token")
        Files.writeString(token, jwt(boundClaims) + "\n")
        LeaseOwner.fromToken("danki-system", token).shouldNotBeNull().uid shouldBe "5e1d3c0a-sa"
    }

    @Test
    fun `no token, or a token that is not a JWT, means no owner rather than a failure`(
        @TempDir dir: Path,
    ) {
        LeaseOwner.fromToken("danki-system", dir.resolve("missing")) shouldBe null
        val garbage = dir.resolve("token")
        Files.writeString(garbage, "not-a-jwt")
        LeaseOwner.fromToken("danki-system", garbage) shouldBe null
        Files.writeString(garbage, jwt("{not json"))
        LeaseOwner.fromToken("danki-system", garbage) shouldBe null
    }
}
