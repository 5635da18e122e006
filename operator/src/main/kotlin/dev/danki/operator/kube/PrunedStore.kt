package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.HasMetadata
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore
import io.fabric8.kubernetes.client.informers.cache.ItemStore
import io.fabric8.kubernetes.client.informers.cache.Cache as InformerCache

/**
 * An informer's store that keeps each object as [prune] leaves it: what danki reads of it, not all the
 * API server sends. [prune] gets the informer's own copy, just decoded from the watch, which nothing else
 * holds yet, and may change it or return another.
 *
 * For one informer only: fabric8 reconciles a relist against the store's whole key set, so a store
 * shared by the informers of several namespaces would drop the others' objects.
 */
open class PrunedStore<T : HasMetadata>(
    private val prune: (T) -> T,
) : ItemStore<T> {
    private val store = BasicItemStore<T> { InformerCache.metaNamespaceKeyFunc(it) }

    override fun getKey(obj: T): String = store.getKey(obj)

    override fun put(key: String, obj: T): T? = store.put(key, prune(obj))

    override fun remove(key: String): T? = store.remove(key)

    override fun keySet() = store.keySet()

    override fun values() = store.values()

    override fun size(): Int = store.size()

    override fun get(key: String): T? = store.get(key)
}
