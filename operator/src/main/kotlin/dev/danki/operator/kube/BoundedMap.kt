package dev.danki.operator.kube

/** A map that forgets its least recently used entry past [maxSize]: memory for "seen already" sets. */
class BoundedMap<K, V>(
    private val maxSize: Int,
) : LinkedHashMap<K, V>(INITIAL_CAPACITY, LOAD_FACTOR, true) {
    override fun removeEldestEntry(eldest: MutableMap.MutableEntry<K, V>?): Boolean = size > maxSize

    companion object {
        private const val INITIAL_CAPACITY = 256
        private const val LOAD_FACTOR = 0.75f
    }
}
