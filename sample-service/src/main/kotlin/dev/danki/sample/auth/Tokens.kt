package dev.danki.sample.auth

import dev.danki.sample.config.AuthSettings
import java.security.MessageDigest
import java.security.SecureRandom
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.util.Base64
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

/** Who a valid token names, and until when. */
data class TokenHolder(
    val username: String,
    val expiresAt: Instant,
)

/**
 * Logs the demo account in and checks bearer tokens. A token is `<payload>.<HMAC-SHA256 of it>` with a
 * key drawn at start-up: nothing is stored per login (warm-up logs in thousands of times), and every
 * token dies with the process.
 */
class Tokens(
    private val account: AuthSettings,
    private val lifetime: Duration = DEFAULT_LIFETIME,
    private val clock: Clock = Clock.systemUTC(),
    key: ByteArray = randomKey(),
) {
    private val keySpec = SecretKeySpec(key, HMAC)

    /** A token for [username] when [password] is the account's, else null. */
    fun login(username: String, password: String): String? {
        // compare both in constant time, so the answer's timing tells nothing about either
        val userOk = sameBytes(username, account.username)
        val passwordOk = sameBytes(password, account.password)
        if (!(userOk && passwordOk)) return null
        val expiresAt = clock.instant().plus(lifetime).epochSecond
        val payload = encoder.encodeToString("$username\n$expiresAt".toByteArray())
        return "$payload.${encoder.encodeToString(sign(payload))}"
    }

    /** Who [token] names, or null when it is malformed, forged or expired. */
    fun verify(token: String): TokenHolder? {
        val payload = token.substringBefore('.')
        val signature = runCatching { decoder.decode(token.substringAfter('.', "")) }.getOrNull()
        // only a payload this process signed is read at all
        if (signature == null || !MessageDigest.isEqual(signature, sign(payload))) return null
        val fields = String(decoder.decode(payload)).split('\n')
        val expiresAt = fields.getOrNull(1)?.toLongOrNull()?.let(Instant::ofEpochSecond)
        return if (expiresAt != null && clock.instant().isBefore(expiresAt)) TokenHolder(fields[0], expiresAt) else null
    }

    private fun sign(payload: String): ByteArray {
        val mac = Mac.getInstance(HMAC)
        mac.init(keySpec)
        return mac.doFinal(payload.toByteArray())
    }

    private fun sameBytes(given: String, expected: String) =
        MessageDigest.isEqual(given.toByteArray(), expected.toByteArray())

    companion object {
        /** An hour: longer than any warm-up, short enough that a leaked demo token soon dies. */
        val DEFAULT_LIFETIME: Duration = Duration.ofHours(1)
        private const val HMAC = "HmacSHA256"
        private const val KEY_BYTES = 32
        private val encoder = Base64.getUrlEncoder().withoutPadding()
        private val decoder = Base64.getUrlDecoder()

        private fun randomKey() = ByteArray(KEY_BYTES).also { SecureRandom().nextBytes(it) }
    }
}
