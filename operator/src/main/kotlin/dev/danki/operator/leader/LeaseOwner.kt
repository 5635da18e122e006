package dev.danki.operator.leader

import com.fasterxml.jackson.databind.ObjectMapper
import io.fabric8.kubernetes.api.model.OwnerReference
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder
import org.slf4j.LoggerFactory
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.util.Base64

/**
 * The operator's own ServiceAccount as the owner of its Lease, so that the garbage collector deletes
 * the Lease together with the ServiceAccount. `helm uninstall` deletes the operator's RBAC at the same
 * moment as its Deployment, so a replica stopping after that may no longer delete the Lease itself.
 *
 * The name and UID come from the claims of the pod's bound service-account token (`kubernetes.io`
 * → `serviceaccount`), which needs no API rights at all.
 */
object LeaseOwner {
    private val log = LoggerFactory.getLogger(LeaseOwner::class.java)
    private val json = ObjectMapper()

    /** Where the kubelet projects the pod's token. */
    val TOKEN_PATH: Path = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token")

    /** The owner reference for a Lease in [leaseNamespace], or null (not in a pod, or another namespace). */
    fun fromToken(leaseNamespace: String, token: Path = TOKEN_PATH): OwnerReference? {
        if (!Files.isReadable(token)) return null
        return try {
            fromClaims(claims(Files.readString(token).trim()), leaseNamespace)
        } catch (e: IOException) {
            unreadable(token, e)
        } catch (e: IllegalArgumentException) {
            unreadable(token, e)
        }
    }

    /** No owner only means the Lease is not collected with the ServiceAccount: worth a line, not a failure. */
    private fun unreadable(token: Path, cause: Exception): OwnerReference? {
        log
            .atWarn()
            .addKeyValue("token", token)
            .setCause(cause)
            .log("service-account token unreadable: lease has no owner")
        return null
    }

    /** The JSON payload of a JWT (no signature check: the API server issued it to this pod). */
    private fun claims(jwt: String): String {
        val parts = jwt.split('.')
        require(parts.size == JWT_PARTS) { "not a JWT" }
        return String(Base64.getUrlDecoder().decode(parts[1]))
    }

    internal fun fromClaims(payload: String, leaseNamespace: String): OwnerReference? {
        val kube = json.readTree(payload).path("kubernetes.io")
        val account = kube.path("serviceaccount")
        val name = account.path("name").asText("")
        val uid = account.path("uid").asText("")
        // an owner must live in the dependent's namespace; a legacy token carries no such claims
        if (name.isEmpty() || uid.isEmpty() || kube.path("namespace").asText("") != leaseNamespace) return null
        return OwnerReferenceBuilder()
            .withApiVersion("v1")
            .withKind("ServiceAccount")
            .withName(name)
            .withUid(uid)
            .build()
    }

    private const val JWT_PARTS = 3
}
