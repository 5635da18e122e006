package dev.danki.operator.webhook

import java.net.Socket
import java.security.Principal
import java.security.PrivateKey
import java.security.cert.X509Certificate
import java.util.concurrent.atomic.AtomicReference
import javax.net.ssl.SSLEngine
import javax.net.ssl.X509ExtendedKeyManager

/**
 * The webhook's serving key and certificate chain, swappable while the server runs: each TLS handshake
 * reads the current pair, so a rotated certificate is served from the next connection on, no restart.
 */
class ServingKeys : X509ExtendedKeyManager() {
    private val current = AtomicReference<Pair<PrivateKey, Array<X509Certificate>>?>(null)

    /** True once a certificate is loaded: until then the replica is not ready to admit pods. */
    fun loaded(): Boolean = current.get() != null

    /** The certificate served now, for comparisons and logs. */
    fun serving(): X509Certificate? = current.get()?.second?.first()

    fun load(serving: KeyMaterial) {
        current.set(serving.key to arrayOf(serving.certificate))
    }

    override fun chooseEngineServerAlias(
        keyType: String?,
        issuers: Array<out Principal>?,
        engine: SSLEngine?,
    ): String? = aliasFor(keyType)

    override fun chooseServerAlias(keyType: String?, issuers: Array<out Principal>?, socket: Socket?): String? =
        aliasFor(keyType)

    override fun getCertificateChain(alias: String?): Array<X509Certificate>? = current.get()?.second?.clone()

    override fun getPrivateKey(alias: String?): PrivateKey? = current.get()?.first

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
        val key = current.get()?.first ?: return null
        return ALIAS.takeIf { keyType == null || keyType.startsWith(key.algorithm) }
    }

    private companion object {
        const val ALIAS = "webhook"
    }
}
