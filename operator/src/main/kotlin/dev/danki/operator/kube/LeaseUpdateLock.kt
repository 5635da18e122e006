package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.OwnerReference
import io.fabric8.kubernetes.api.model.coordination.v1.Lease
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock
import java.time.Duration

/**
 * fabric8's Lease lock, renewing with update (PUT, optimistic on the resourceVersion it last read)
 * where fabric8's LeaseLock patches: danki's Role grants create, and get/update/delete on the Lease's
 * name, and nothing else. The Lease carries [owner] (see [LeaseOwner]) and keeps any other owners.
 */
class LeaseUpdateLock(
    private val namespace: String,
    private val name: String,
    private val identity: String,
    private val owner: OwnerReference? = null,
) : Lock {
    private var lease: Lease? = null

    @Synchronized
    override fun get(client: KubernetesClient): LeaderElectionRecord? {
        lease =
            client
                .leases()
                .inNamespace(namespace)
                .withName(name)
                .get()
        return lease?.spec?.let {
            LeaderElectionRecord(
                it.holderIdentity,
                Duration.ofSeconds((it.leaseDurationSeconds ?: 0).toLong()),
                it.acquireTime,
                it.renewTime,
                it.leaseTransitions ?: 0,
            )
        }
    }

    @Synchronized
    override fun create(
        client: KubernetesClient,
        record: LeaderElectionRecord,
    ) {
        lease = client.resource(toLease(record, null, emptyList())).create()
    }

    @Synchronized
    override fun update(
        client: KubernetesClient,
        record: LeaderElectionRecord,
    ) {
        val current = checkNotNull(lease) { "get or create must be called first" }
        val owners = current.metadata.ownerReferences.orEmpty()
        lease = client.resource(toLease(record, current.metadata.resourceVersion, owners)).update()
    }

    override fun identity() = identity

    override fun describe() = "LeaseLock: $namespace - $name ($identity)"

    /** An update is a PUT: it must carry the owners the Lease already has, plus ours. */
    private fun toLease(
        record: LeaderElectionRecord,
        resourceVersion: String?,
        owners: List<OwnerReference>,
    ): Lease =
        LeaseBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withResourceVersion(resourceVersion)
            .withOwnerReferences(owners + listOfNotNull(owner?.takeIf { ours -> owners.none { it.uid == ours.uid } }))
            .endMetadata()
            .withNewSpec()
            .withHolderIdentity(record.holderIdentity)
            .withLeaseDurationSeconds(record.leaseDuration.seconds.toInt())
            .withAcquireTime(record.acquireTime)
            .withRenewTime(record.renewTime)
            .withLeaseTransitions(record.leaderTransitions)
            .endSpec()
            .build()
}
