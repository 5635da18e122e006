package dev.danki.sample.auth

import dev.danki.sample.config.AuthSettings
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneOffset
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertNull

class TokensTest {
    private val account = AuthSettings("alice", "s3cret")
    private val key = ByteArray(32) { it.toByte() }
    private val now = Instant.parse("2026-11-23T10:00:00Z")

    private fun tokens(at: Instant) = Tokens(account, Duration.ofMinutes(10), Clock.fixed(at, ZoneOffset.UTC), key)

    @Test
    fun `a token names its user until it expires`() {
        val token = assertNotNull(tokens(now).login("alice", "s3cret"))

        assertEquals(TokenHolder("alice", now.plusSeconds(600)), tokens(now.plusSeconds(599)).verify(token))
        assertNull(tokens(now.plusSeconds(600)).verify(token))
    }

    @Test
    fun `wrong credentials get no token`() {
        assertNull(tokens(now).login("alice", "s3cret!"))
        assertNull(tokens(now).login("bob", "s3cret"))
    }

    @Test
    fun `a token signed with another key, or changed, is refused`() {
        val token = assertNotNull(tokens(now).login("alice", "s3cret"))
        val otherKey = Tokens(account, Duration.ofMinutes(10), Clock.fixed(now, ZoneOffset.UTC), ByteArray(32))
        val (payload, signature) = token.split('.')

        assertNull(otherKey.verify(token))
        assertNull(tokens(now).verify("${payload}x.$signature"))
        assertNull(tokens(now).verify(payload))
        assertNull(tokens(now).verify("$payload.!!"))
    }
}
