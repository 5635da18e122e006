package dev.danki.operator.it

import dev.danki.operator.leader.LeaseCleanup
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder
import io.fabric8.kubernetes.api.model.coordination.v1.Lease
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import io.fabric8.kubernetes.client.KubernetesClientException
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.time.ZonedDateTime

/** Leader election on a real Lease: renewed, deleted on a clean stop, never someone else's; its owner kept. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseIT {
    private val space = ItNamespace("danki-it-lease")
    private val leases = space.client.leases().inNamespace(space.ns)

    private fun lease(name: String, holder: String?): Lease =
        space.client
            .resource(
                LeaseBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(space.ns)
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(holder)
                    .withLeaseDurationSeconds(15)
                    .withRenewTime(ZonedDateTime.now())
                    .endSpec()
                    .build(),
            ).create()

    /** An operator that leads, as `replica-a`, on the Lease [name]. */
    private fun leaderOn(name: String) =
        space.operator {
            copy(leaderElection = true, leaseName = name, leaseNamespace = space.ns, identity = "replica-a")
        }

    /** The Lease [first] once JOSDK's lock has renewed it. */
    private fun renewalOf(first: Lease): Lease =
        eventually(Duration.ofSeconds(10)) {
            leases
                .withName(first.metadata.name)
                .get()!!
                .also { it.spec.renewTime shouldNotBe first.spec.renewTime }
        }

    @Test
    fun `a leader renews its Lease, and on stop deletes it`() {
        val operator = leaderOn("renewed")
        val first =
            eventually(Duration.ofSeconds(30)) {
                leases
                    .withName("renewed")
                    .get()
                    .shouldNotBeNull()
                    .also { it.spec.holderIdentity shouldBe "replica-a" }
            }
        renewalOf(first)
        operator.stop()
        leases.withName("renewed").get() shouldBe null
    }

    @Test
    fun `a replica that finds the Lease held under its name by an earlier process leads since its own start`() {
        // a container restarted within the Lease's duration: same pod name, so fabric8's lock renews the
        // Lease as its own and keeps the earlier process's acquireTime
        val earlier = ZonedDateTime.now().minusHours(1)
        LeaseLock(space.ns, "restarted", "replica-a")
            .create(
                space.client,
                LeaderElectionRecord("replica-a", Duration.ofSeconds(15), earlier, ZonedDateTime.now(), 0),
            )
        val before = ZonedDateTime.now().minusSeconds(1)
        val operator = leaderOn("restarted")
        val claimed =
            eventually(Duration.ofSeconds(30)) {
                leases
                    .withName("restarted")
                    .get()!!
                    .also { it.spec.acquireTime.isAfter(before) shouldBe true }
            }
        // JOSDK's renewals keep it
        val renewed = renewalOf(claimed)
        renewed.spec.acquireTime shouldBe claimed.spec.acquireTime
        renewed.spec.holderIdentity shouldBe "replica-a"
        operator.stop()
    }

    @Test
    fun `the Lease's owner, the operator's ServiceAccount, survives renewals by JOSDK's lock`() {
        val account =
            space.client
                .serviceAccounts()
                .inNamespace(space.ns)
                .resource(
                    ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("danki")
                        .endMetadata()
                        .build(),
                ).create()
        val owner =
            OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("ServiceAccount")
                .withName("danki")
                .withUid(account.metadata.uid)
                .build()
        val meta =
            ObjectMetaBuilder()
                .withNamespace(space.ns)
                .withName("owned")
                .withOwnerReferences(owner)
                .build()
        val now = ZonedDateTime.now()
        LeaseLock(meta, "replica-a").create(
            space.client,
            LeaderElectionRecord("replica-a", Duration.ofSeconds(15), now, now, 0),
        )
        // JOSDK's lock, as its leader election builds it: no metadata of its own
        val lock = LeaseLock(space.ns, "owned", "replica-a")
        lock.get(space.client)
        lock.update(space.client, LeaderElectionRecord("replica-a", Duration.ofSeconds(15), now, now.plusSeconds(2), 0))
        val renewed = leases.withName("owned").get().shouldNotBeNull()
        renewed.spec.renewTime.isAfter(now.plusSeconds(1)) shouldBe true
        renewed.metadata.ownerReferences.map { it.uid } shouldBe listOf(account.metadata.uid)
    }

    @Test
    fun `a released Lease is deleted, one held by another replica is kept`() {
        lease("released", holder = null)
        LeaseCleanup(space.client, space.ns, "released", "replica-a").deleteIfFree() shouldBe true
        leases.withName("released").get() shouldBe null

        lease("taken", holder = "replica-b")
        LeaseCleanup(space.client, space.ns, "taken", "replica-a").deleteIfFree() shouldBe false
        leases
            .withName("taken")
            .get()!!
            .spec.holderIdentity shouldBe "replica-b"
    }
}
