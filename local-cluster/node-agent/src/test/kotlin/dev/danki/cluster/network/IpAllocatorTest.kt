package dev.danki.cluster.network

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class IpAllocatorTest {
    @Test
    fun `addresses start after the gateway, are distinct and come back`() {
        val allocator = IpAllocator("198.18.3.0/24")
        assertEquals("198.18.3.1", allocator.gateway)
        assertEquals("198.18.3.2", allocator.allocate())
        assertEquals("198.18.3.3", allocator.allocate())
        allocator.release("198.18.3.2")
        assertEquals("198.18.3.2", allocator.allocate())
    }

    @Test
    fun `a pod keeps its address only when it is in range and free`() {
        val allocator = IpAllocator("198.18.3.0/24")
        assertTrue(allocator.claim("198.18.3.9"))
        assertFalse(allocator.claim("198.18.3.9"))
        assertFalse(allocator.claim("198.18.4.9"))
        assertFalse(allocator.claim("198.18.3.1"))
    }

    @Test
    fun `the range runs out with a clear error`() {
        val allocator = IpAllocator("198.18.3.0/24")
        repeat(253) { allocator.allocate() }
        assertFailsWith<IllegalStateException> { allocator.allocate() }
    }

    @Test
    fun `only a slash-24 is accepted`() {
        assertFailsWith<IllegalArgumentException> { IpAllocator("198.18.0.0/16") }
    }
}
