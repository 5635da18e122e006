package dev.danki.operator.leader

import io.fabric8.kubernetes.api.model.OwnerReference
import io.fabric8.kubernetes.api.model.coordination.v1.Lease
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import java.time.Instant
import java.time.ZonedDateTime

/** The edit [LeaderElection] makes to a Lease it has just won, and the time it reads back. */
object LeaseClaim {
    /**
     * [lease] with [owner] (when known) as its only owner, and an `acquireTime` from before [processStart]
     * (an earlier process under the same identity acquired it) moved to [now].
     */
    fun of(lease: Lease, owner: OwnerReference?, processStart: Instant, now: ZonedDateTime): Lease {
        val builder = LeaseBuilder(lease)
        if (owner != null) builder.editMetadata().withOwnerReferences(owner).endMetadata()
        if (acquiredBefore(lease, processStart)) builder.editSpec().withAcquireTime(now).endSpec()
        return builder.build()
    }

    /** The Lease's `acquireTime`, or null when it has none. */
    fun acquiredAt(lease: Lease): Instant? = lease.spec?.acquireTime?.toInstant()

    private fun acquiredBefore(lease: Lease, processStart: Instant): Boolean =
        acquiredAt(lease)?.isBefore(processStart) ?: true
}
