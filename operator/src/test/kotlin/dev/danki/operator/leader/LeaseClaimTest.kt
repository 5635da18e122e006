package dev.danki.operator.leader

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder
import io.fabric8.kubernetes.api.model.coordination.v1.Lease
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Instant
import java.time.ZoneOffset
import java.time.ZonedDateTime

class LeaseClaimTest {
    private val start = Instant.parse("2026-11-27T10:00:00Z")
    private val now = ZonedDateTime.parse("2026-11-27T10:00:05Z")
    private val owner =
        OwnerReferenceBuilder()
            .withApiVersion("v1")
            .withKind("ServiceAccount")
            .withName("danki")
            .withUid("u1")
            .build()

    private fun lease(acquired: Instant?): Lease =
        LeaseBuilder()
            .withNewMetadata()
            .withName("danki")
            .endMetadata()
            .withNewSpec()
            .withHolderIdentity("danki-0")
            .withAcquireTime(acquired?.atZone(ZoneOffset.UTC))
            .endSpec()
            .build()

    @Test
    fun `a Lease acquired by this process keeps its time`() {
        val won = start.plusSeconds(3)
        LeaseClaim.acquiredAt(LeaseClaim.of(lease(won), owner, start, now)) shouldBe won
    }

    @Test
    fun `a Lease acquired before this process started, under the same name, is acquired now`() {
        val claimed = LeaseClaim.of(lease(start.minusSeconds(3600)), owner, start, now)
        LeaseClaim.acquiredAt(claimed) shouldBe now.toInstant()
    }

    @Test
    fun `a Lease without a time gets one`() {
        LeaseClaim.acquiredAt(LeaseClaim.of(lease(null), null, start, now)) shouldBe now.toInstant()
    }

    @Test
    fun `the owner is set in a pod and left alone outside one`() {
        LeaseClaim.of(lease(start), owner, start, now).metadata.ownerReferences shouldBe listOf(owner)
        LeaseClaim.of(lease(start), null, start, now).metadata.ownerReferences shouldBe emptyList()
    }
}
