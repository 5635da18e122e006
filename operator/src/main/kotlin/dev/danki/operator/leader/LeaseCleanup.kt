package dev.danki.operator.leader

import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory

/**
 * Deletes the Lease when nobody holds it (or [identity] still does), with the resourceVersion it read
 * as a precondition: a Lease another replica acquired in between is never deleted (the API server
 * answers 409 and the Lease stays).
 */
class LeaseCleanup(
    private val client: KubernetesClient,
    private val namespace: String,
    private val name: String,
    private val identity: String,
) {
    private val log = LoggerFactory.getLogger(LeaseCleanup::class.java)

    /** True when this call deleted the Lease. */
    fun deleteIfFree(): Boolean {
        val lease = client.leases().inNamespace(namespace).withName(name)
        try {
            val current = lease.get() ?: return false
            val holder = current.spec?.holderIdentity
            if (!holder.isNullOrEmpty() && holder != identity) return false
            lease.lockResourceVersion(current.metadata.resourceVersion).delete()
            log
                .atInfo()
                .addKeyValue("lease", name)
                .addKeyValue("namespace", namespace)
                .log("lease deleted")
            return true
        } catch (e: KubernetesClientException) {
            // 409: another replica took it since we read it; anything else: the Lease expires on its own
            log
                .atInfo()
                .addKeyValue("lease", name)
                .addKeyValue("namespace", namespace)
                .addKeyValue("code", e.code)
                .log("lease kept")
            return false
        }
    }
}
