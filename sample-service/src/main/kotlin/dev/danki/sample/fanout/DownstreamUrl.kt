package dev.danki.sample.fanout

import java.net.Inet4Address
import java.net.InetAddress
import java.net.URI

/**
 * Parses a `/fanout` downstream and allows only loopback and the benchmark pod range 198.18.0.0/15:
 * the service must never be turned into a load generator against someone else's address.
 */
object DownstreamUrl {
    private val IPV4_LITERAL = Regex("""\d{1,3}(\.\d{1,3}){3}""")
    private const val POD_RANGE_FIRST_OCTET = 198
    private val POD_RANGE_SECOND_OCTETS = 18..19
    private const val OCTET_MASK = 0xff

    /** The URI when [raw] is an http URL to an allowed address, else a failure saying why. */
    fun parse(raw: String): Result<URI> {
        val uri = runCatching { URI(raw) }.getOrNull()
        val host = uri?.host?.removePrefix("[")?.removeSuffix("]")
        return when {
            uri == null || host == null -> {
                Result.failure(IllegalArgumentException("downstream '$raw': not an absolute URL"))
            }

            uri.scheme != "http" -> {
                Result.failure(IllegalArgumentException("downstream '$raw': only http:// is supported"))
            }

            !isAllowedHost(host) -> {
                Result.failure(
                    IllegalArgumentException(
                        "downstream '$raw': host must be loopback (127.0.0.0/8, ::1, localhost) or in 198.18.0.0/15",
                    ),
                )
            }

            else -> {
                Result.success(uri)
            }
        }
    }

    /** Literal addresses only (plus `localhost`): resolving other names would send DNS traffic. */
    fun isAllowedHost(host: String): Boolean {
        if (host.equals("localhost", ignoreCase = true)) return true
        val literal = IPV4_LITERAL.matches(host) || host.contains(':')
        // getByName on a literal parses it without any lookup
        val address = if (literal) runCatching { InetAddress.getByName(host) }.getOrNull() else null
        return address != null && (address.isLoopbackAddress || isInPodRange(address))
    }

    private fun isInPodRange(address: InetAddress): Boolean {
        if (address !is Inet4Address) return false
        val octets = address.address.map { it.toInt() and OCTET_MASK }
        return octets[0] == POD_RANGE_FIRST_OCTET && octets[1] in POD_RANGE_SECOND_OCTETS
    }
}
