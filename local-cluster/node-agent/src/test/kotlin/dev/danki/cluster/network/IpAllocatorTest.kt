package dev.danki.cluster.network

import java.time.Duration
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class IpAllocatorTest {
    private var now = Instant.parse("2026-11-23T10:00:00Z")
    private val allocator = IpAllocator("198.18.3.0/24", Duration.ofSeconds(60)) { now }

    @Test
    fun `addresses start after the gateway, are distinct and come back after their rest`() {
        assertEquals("198.18.3.1", allocator.gateway)
        assertEquals("198.18.3.2", allocator.allocate())
        assertEquals("198.18.3.3", allocator.allocate())
        allocator.release("198.18.3.2")
        now = now.plusSeconds(61)
        assertEquals("198.18.3.2", allocator.allocate())
    }

    @Test
    fun `an address given back is not handed out again within the quarantine while another is free`() {
        val first = allocator.allocate()
        allocator.allocate()
        allocator.release(first)
        now = now.plusSeconds(59)
        assertEquals("198.18.3.4", allocator.allocate())
    }

    @Test
    fun `when every free address rests, the one given back longest ago is used`() {
        val all = List(253) { allocator.allocate() }
        allocator.release(all[10])
        now = now.plusSeconds(1)
        allocator.release(all[3])
        assertEquals(all[10], allocator.allocate())
        assertEquals(all[3], allocator.allocate())
    }

    @Test
    fun `a pod keeps its address only when it is in range and free`() {
        assertTrue(allocator.claim("198.18.3.9"))
        assertFalse(allocator.claim("198.18.3.9"))
        assertFalse(allocator.claim("198.18.4.9"))
        assertFalse(allocator.claim("198.18.3.1"))
    }

    @Test
    fun `the range runs out with a clear error`() {
        repeat(253) { allocator.allocate() }
        assertFailsWith<IllegalStateException> { allocator.allocate() }
    }

    @Test
    fun `only a slash-24 is accepted`() {
        assertFailsWith<IllegalArgumentException> { IpAllocator("198.18.0.0/16") }
    }
}
