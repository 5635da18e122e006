package dev.danki.sample.fanout

import kotlin.test.Test
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class DownstreamUrlTest {
    @Test
    fun `loopback and the benchmark pod range are allowed`() {
        listOf(
            "http://127.0.0.1:8080/slow?ms=3000",
            "http://127.3.4.5/",
            "http://localhost:1/",
            "http://[::1]:80/",
            "http://198.18.0.12:8080",
            "http://198.19.255.1/",
        ).forEach { assertTrue(DownstreamUrl.parse(it).isSuccess, it) }
    }

    @Test
    fun `other addresses, names and schemes are refused`() {
        listOf(
            "http://8.8.8.8/",
            "http://198.20.0.1/",
            "http://10.0.0.1/",
            "http://example.com/",
            "https://127.0.0.1/",
            "file:///etc/passwd",
            "not a url",
        ).forEach { assertTrue(DownstreamUrl.parse(it).isFailure, it) }
    }

    @Test
    fun `host names other than localhost are never resolved`() {
        assertFalse(DownstreamUrl.isAllowedHost("localhost.example.com"))
    }
}
